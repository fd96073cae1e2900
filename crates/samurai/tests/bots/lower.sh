#!/bin/sh
echo "  b"
