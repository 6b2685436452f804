#!/bin/bash
rewardkit /tests
