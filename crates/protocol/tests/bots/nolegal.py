"""A bot that says "legal": false in ready and works out its own choices (for the
tests): python3 nolegal.py [VALUE]. With VALUE it says "legal": VALUE instead (a
bad value, to be refused). It exits with an error if a decide line carries legal.
"""
import json, sys

value = json.loads(sys.argv[1]) if len(sys.argv) > 1 else False


def choose(decision, view):
    kind = decision["kind"]
    me = view["seat"]
    if kind == "action":
        if view["coins"][me] >= 10:
            target = next(s for s in range(view["players"]) if s != me and view["alive"][s])
            return {"act": {"coup": target}}
        return {"act": "income"}
    if kind == "exchange":
        return {"keep": view["cards"]}
    if kind == "lose_influence":
        return {"lose": view["cards"][0]}
    return "pass"  # challenges and blocks


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "no legal", "legal": value}), flush=True)
    elif msg["type"] == "decide":
        if "legal" in msg:
            sys.exit("a decide line carried legal after \"legal\": false")
        answer = {"choice": choose(msg["decision"], msg["view"]), "id": msg["id"]}
        print(json.dumps(answer), flush=True)
