#!/bin/sh
echo B
kill -SEGV $$
