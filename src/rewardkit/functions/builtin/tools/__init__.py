"""The tools family: did the model make the expected function calls (`exact_tool_match_reward`,
BFCL), and the schema checks of one call they share.
"""
