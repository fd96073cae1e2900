//! koth's coup-cli adapter (`sdk/coup-cli/adapter.js`, built into the binary): a
//! coup-cli bot folder runs unchanged through it, speaking JSON lines to koth.

use crate::error::ConfigError;
use std::path::PathBuf;

const ADAPTER_FILES: [(&str, &str); 3] = [
    (
        "adapter.js",
        include_str!("../../../sdk/coup-cli/adapter.js"),
    ),
    (
        "constants.js",
        include_str!("../../../sdk/coup-cli/constants.js"),
    ),
    ("helper.js", include_str!("../../../sdk/coup-cli/helper.js")),
];

/// The path of koth's coup-cli adapter (`sdk/coup-cli/adapter.js`, built into the
/// binary), written with its two helper files into the user's cache folder
/// (`$XDG_CACHE_HOME` or `~/.cache`, `koth/coup-cli-<version>`) and checked byte for
/// byte on every call, so a changed or stale copy is rewritten.
pub fn coup_cli_adapter() -> Result<PathBuf, ConfigError> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = cache
        .join("koth")
        .join(format!("coup-cli-{}", env!("CARGO_PKG_VERSION")));
    let fail = |e: std::io::Error| {
        ConfigError(format!(
            "cannot write koth's coup-cli adapter to {}: {e}\n  fix: set XDG_CACHE_HOME to a writable folder",
            dir.display()
        ))
    };
    std::fs::create_dir_all(&dir).map_err(fail)?;
    for (name, text) in ADAPTER_FILES {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
            // Written aside then renamed: a run reading it meanwhile sees a whole file.
            let tmp = dir.join(format!(".{name}.{}", std::process::id()));
            std::fs::write(&tmp, text).map_err(fail)?;
            std::fs::rename(&tmp, &path).map_err(fail)?;
        }
    }
    Ok(dir.join("adapter.js"))
}

/// The command that runs coup-cli bot folder `folder` (relative to the working
/// folder) through the bundled adapter.
pub(crate) fn coup_cli_command(folder: &str) -> Result<Vec<String>, ConfigError> {
    let adapter = coup_cli_adapter()?;
    Ok(vec![
        "node".to_string(),
        adapter.display().to_string(),
        folder.to_string(),
    ])
}
