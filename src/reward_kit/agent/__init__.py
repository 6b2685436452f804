"""reward-kit's `reward_kit.agent`: only its data model `StepData` (`reward_kit.agent.models`).

reward-kit 0.4.1's agent framework (resources, orchestrator, `agent-eval`) is not provided.
"""
