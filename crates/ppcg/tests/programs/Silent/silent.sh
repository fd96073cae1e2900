#!/bin/sh
# Writes nothing.
exit 0
