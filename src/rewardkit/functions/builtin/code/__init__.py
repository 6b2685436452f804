"""The code family: rewards that run the response's code in the jail (`_run`, the trusted
harness `_harness`) and decide its verdict outside it (`_verdict`): local execution, test
cases, APPS, DeepCoder.
"""
