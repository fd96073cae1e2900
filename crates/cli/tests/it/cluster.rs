//! The cluster recipes in docs/cluster run as written: every Slurm array task and
//! every Kubernetes Indexed Job pod plays its shard, and the shards merge into the
//! run one machine makes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_koth"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn path_with_koth() -> String {
    format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cluster")
}

fn merge_and_compare(work: &Path, shards: Vec<PathBuf>) {
    let merged = work.join("merged");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_koth"));
    cmd.arg("merge").args(&shards).arg("--out").arg(&merged);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let whole = work.join("whole");
    let out = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args([
            "coup",
            "loop",
            "--games",
            "800",
            "--seed",
            "2026",
            "--records",
            "results",
            "-q",
            "--out",
        ])
        .arg(&whole)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        std::fs::read(merged.join("games.jsonl")).unwrap(),
        std::fs::read(whole.join("games.jsonl")).unwrap()
    );
}

#[test]
fn the_slurm_array_script_runs_and_merges() {
    let work = std::env::temp_dir().join(format!("koth-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let script = docs().join("koth-shards.slurm");
    for task in 1..=8 {
        let out = Command::new("bash")
            .arg(&script)
            .current_dir(&work)
            .env("PATH", path_with_koth())
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_CPUS_PER_TASK", "2")
            .env("KOTH_GAMES", "800")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "task {task}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A requeued task resumes instead of failing on its existing folder.
    let again = Command::new("bash")
        .arg(&script)
        .current_dir(&work)
        .env("PATH", path_with_koth())
        .env("SLURM_ARRAY_TASK_ID", "3")
        .env("SLURM_CPUS_PER_TASK", "2")
        .env("KOTH_GAMES", "800")
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let shards = (1..=8)
        .map(|i| work.join(format!("results/shard-{i}")))
        .collect();
    merge_and_compare(&work, shards);
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn the_kubernetes_indexed_job_command_runs_and_merges() {
    let work = std::env::temp_dir().join(format!("koth-k8s-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(work.join("results")).unwrap();
    let yaml = std::fs::read_to_string(docs().join("koth-shards.yaml")).unwrap();
    assert!(yaml.contains("completionMode: Indexed") && yaml.contains("completions: 8"));
    // The container's shell script: the block after `- |` under args.
    let mut script = String::new();
    let mut inside = false;
    for line in yaml.lines() {
        if line.trim() == "- |" {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with("              ") && !line.trim().is_empty() {
                break;
            }
            script.push_str(line.trim_start());
            script.push('\n');
        }
    }
    assert!(script.contains("JOB_COMPLETION_INDEX"), "{script}");
    let results = work.join("results");
    let script = script.replace("/results", results.to_str().unwrap());
    for index in 0..8 {
        let out = Command::new("sh")
            .args(["-c", &script])
            .env("PATH", path_with_koth())
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("KOTH_GAMES", "800")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pod {index}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let shards = (0..8).map(|i| results.join(format!("shard-{i}"))).collect();
    merge_and_compare(&work, shards);
    std::fs::remove_dir_all(&work).ok();
}
