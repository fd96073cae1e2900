#!/bin/sh
# Prints something that is not a move: recorded as W, with the reason.
echo z
