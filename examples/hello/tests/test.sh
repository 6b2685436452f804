#!/bin/bash
# In a Harbor task: grade /app and write /logs/verifier/reward.json.
rewardkit /tests
