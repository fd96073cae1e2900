use koth_arena::Game;
use koth_samurai::*;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut s0 = builtin(&a[1]).unwrap();
    let mut s1 = builtin(&a[2]).unwrap();
    s0.start(1);
    s1.start(2);
    let mut st = State::new(&Rules::default(), 0);
    while st.outcome().is_none() {
        let x = s0.act(&st.view(0));
        let y = s1.act(&st.view(1));
        let l = *st.play_turn(x, y).unwrap();
        println!("{}", narrate_turn_with(&l, [&a[1], &a[2]]));
    }
    println!("{}", narrate_end(&st, [&a[1], &a[2]]).unwrap());
}
