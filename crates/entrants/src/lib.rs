//! Every kind of koth bot made into an agent, and where bots are named: tournament
//! files, program lists of the original challenges and `--bot` arguments.
//!
//! * [`kind`]: the bot kinds ([`BotEntry`], [`BotSource`], [`Protocol`]);
//! * [`file`](mod@file): tournament files (`koth coup run FILE.toml`);
//! * [`arg`]: `--bot NAME=KIND`, bare names and commands, program lists;
//! * [`game`]: what each game knows of bots (built-ins, presets, protocols);
//! * [`agents`]: each kind becomes an entrant of a game ([`BotKinds`], [`entrants`]);
//! * [`preflight`](mod@preflight): every program started and greeted before the first game;
//! * [`coup_cli`]: the bundled adapter that runs coup-cli bot folders.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod agents;
pub mod arg;
pub mod coup_cli;
mod error;
pub mod file;
pub mod game;
pub mod kind;
pub mod preflight;

pub use agents::{entrants, BotKinds, Setup, Timeouts};
pub use arg::{load_list, parse_bot, parse_bot_arg, parse_bot_arg_for};
pub use coup_cli::coup_cli_adapter;
pub use error::ConfigError;
pub use file::TournamentFile;
pub use game::GameKind;
pub use kind::{parse_sandbox, BotEntry, BotSource, Protocol};
pub use preflight::{check_out_dir, check_out_dir_of, preflight};
