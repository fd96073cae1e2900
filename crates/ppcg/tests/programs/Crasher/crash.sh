#!/bin/sh
echo "crasher: something went wrong" >&2
exit 2
