//! The documented template (examples/coup-crate-bot) builds as it is and answers
//! koth: its two-line main makes a `coup` crate bot a koth program.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn the_template_builds_and_answers_koth() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let template = root.join("examples/coup-crate-bot");
    let target = root.join("target/template-test");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(template.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bot = Command::new(target.join("debug/my-coup-bot"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = [
        r#"{"type":"hello","protocol":1,"game":"coup"}"#,
        r#"{"type":"start","game_id":1,"seat":0,"players":2,"names":["me","you"],"rules":{},"seed":1,"view":{}}"#,
        r#"{"type":"decide","id":1,"events":[{"event":"turn","actor":0,"number":1}],"decision":{"kind":"action","actor":0},"view":{"seat":0,"players":2,"cards":["duke","contessa"],"coins":[2,2],"influence":[2,2],"revealed":[[],[]],"alive":[true,true],"deck_size":11,"turn":0},"legal":[{"act":"income"},{"act":"foreign_aid"},{"act":"tax"},{"act":"exchange"},{"act":{"steal":1}},{"act":{"assassinate":1}}]}"#,
    ];
    let mut stdin = bot.stdin.take().unwrap();
    for l in lines {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    let out = bot.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{text}");
    assert_eq!(answers[0]["type"], "ready");
    assert_eq!(answers[0]["name"], "HonestBot");
    // HonestBot holding a Duke takes Tax.
    assert_eq!(
        answers[1],
        serde_json::json!({"choice": {"act": "tax"}, "id": 1})
    );
}
