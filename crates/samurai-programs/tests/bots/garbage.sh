#!/bin/sh
echo "hello, gods"
