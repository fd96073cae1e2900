# Writes junk before a legal move.
import sys
legal = sys.argv[5:]
open(sys.argv[1], 'a').write('x' + legal[-1])
