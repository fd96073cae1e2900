# Answers at once, then keeps running (saving state, say) past any time limit:
# the answer printed in time counts (specs/samurai.md).
import sys, time
print("B", flush=True)
time.sleep(30)
