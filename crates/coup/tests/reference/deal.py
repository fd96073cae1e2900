"""An independent implementation of how koth deals a Coup game (docs/fair-play.md),
written from the description, not the Rust code. It produced the numbers pinned in
tests/it/deals.rs. Needs the `blake3` package: pip install blake3; python3 deal.py"""
import struct
from blake3 import blake3
def rotl(v,c): return ((v<<c)&0xffffffff)|(v>>(32-c))
def qr(x,a,b,c,d):
    x[a]=(x[a]+x[b])&0xffffffff; x[d]=rotl(x[d]^x[a],16)
    x[c]=(x[c]+x[d])&0xffffffff; x[b]=rotl(x[b]^x[c],12)
    x[a]=(x[a]+x[b])&0xffffffff; x[d]=rotl(x[d]^x[a],8)
    x[c]=(x[c]+x[d])&0xffffffff; x[b]=rotl(x[b]^x[c],7)
def block(key, counter, rounds=12):
    const=[0x61707865,0x3320646e,0x79622d32,0x6b206574]
    st=const+list(struct.unpack('<8I',key))+[counter&0xffffffff,counter>>32,0,0]
    x=st[:]
    for _ in range(rounds//2):
        qr(x,0,4,8,12);qr(x,1,5,9,13);qr(x,2,6,10,14);qr(x,3,7,11,15)
        qr(x,0,5,10,15);qr(x,1,6,11,12);qr(x,2,7,8,13);qr(x,3,4,9,14)
    return [(x[i]+st[i])&0xffffffff for i in range(16)]
def stream(seed):
    key=seed.to_bytes(8,'little')+bytes(24); c=0
    while True:
        for w in block(key,c): yield w
        c+=1
def key(p): return p.to_bytes(8,'little')+b"koth seed tree v1 (2026)"
def game_seeds(master,index):
    out=blake3(bytes([1])+index.to_bytes(8,'little'),key=key(master)).digest(length=72)
    return [int.from_bytes(out[8*i:8*i+8],'little') for i in range(9)]
def deal(seed, players):
    it=stream(seed)
    def below(n):
        m=next(it)*n
        if (m&0xffffffff)<n:
            t=((-n)&0xffffffff)%n
            while (m&0xffffffff)<t: m=next(it)*n
        return m>>32
    names=["Ambassador","Assassin","Captain","Contessa","Duke"]
    d=[names[i//3] for i in range(15)]
    for i in range(14,0,-1):
        j=below(i+1); d[i],d[j]=d[j],d[i]
    hands=[]
    for s in range(players):
        hands.append([d.pop(), d.pop()])
    return hands
for master in [0, 2026, 2**64-1]:
    for index in [0,1]:
        g=game_seeds(master,index)[0]
        print(master, index, g, deal(g,6))
