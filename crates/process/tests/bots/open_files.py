# Opens argv[1] files; prints how many it managed before EMFILE.
import sys

files = []
try:
    for i in range(int(sys.argv[1])):
        files.append(open("/dev/null", "rb"))
    print("opened", len(files))
except OSError as e:
    print("emfile", len(files), e.errno)
    sys.exit(4)
