# Appends properly on an empty file, otherwise rewrites the file without its first
# character and with its move: a change other than appending.
import sys
legal = sys.argv[5:]
text = open(sys.argv[1]).read()
open(sys.argv[1], 'w').write(text[1:] + legal[0] if text else legal[0])
