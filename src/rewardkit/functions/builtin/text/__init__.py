"""The text family: format, length, language, reasoning steps, repetition and similarity
rewards over the response's text.
"""
