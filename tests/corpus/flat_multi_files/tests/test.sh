#!/bin/bash
rewardkit /tests --workspace /app
