#!/bin/sh
# Starts slowly (as a big interpreter might), then waits.
sleep 0.3
echo W
