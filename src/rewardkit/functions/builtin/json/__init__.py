"""The JSON family: the response holds valid JSON, satisfies a JSON Schema, optionally
blended with an LLM judge's opinion.
"""
