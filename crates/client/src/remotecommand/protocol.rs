//! The exec channel protocol's bytes: the request's path, the frames each
//! way, and what the status frame says about how the command ended.
//!
//! Every binary message starts with its channel: 0 stdin, 1 stdout,
//! 2 stderr, 3 the error channel (one `Status` when the command ends),
//! 4 resize (`{"Width":…,"Height":…}`), and in `v5.channel.k8s.io` 255,
//! close (the next byte names the stream to close: 0 ends stdin).

use serde::Deserialize;

use crate::api::form_urlencoded_pair;
use crate::names::{NameError, validate_name, validate_namespace};

/// The subprotocols offered, best first: v5 adds closing stdin.
pub const PROTOCOLS: [&str; 2] = ["v5.channel.k8s.io", "v4.channel.k8s.io"];

const STDIN: u8 = 0;
const STDOUT: u8 = 1;
const STDERR: u8 = 2;
const ERROR: u8 = 3;
const RESIZE: u8 = 4;
const CLOSE: u8 = 255;

/// A command to run in a pod's container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecRequest {
    /// The pod's namespace.
    pub namespace: String,
    /// The pod.
    pub pod: String,
    /// The container; the server picks the only one (or refuses) without.
    pub container: Option<String>,
    /// The command and its arguments (no shell parses them).
    pub command: Vec<String>,
    /// A terminal: stdout and stderr are one stream, and resize applies.
    pub tty: bool,
}

impl ExecRequest {
    /// The request's path and query; the names are checked first, so a
    /// name from the cluster or the URL never becomes another path.
    pub fn path(&self) -> Result<String, NameError> {
        validate_namespace(&self.namespace)?;
        validate_name(&self.pod)?;
        if let Some(c) = &self.container {
            validate_name(c)?;
        }
        let mut query = Vec::new();
        if let Some(c) = &self.container {
            query.push(form_urlencoded_pair("container", c));
        }
        for part in &self.command {
            query.push(form_urlencoded_pair("command", part));
        }
        query.push("stdin=true".into());
        query.push("stdout=true".into());
        query.push(format!("stderr={}", !self.tty));
        query.push(format!("tty={}", self.tty));
        Ok(format!(
            "/api/v1/namespaces/{}/pods/{}/exec?{}",
            self.namespace,
            self.pod,
            query.join("&")
        ))
    }
}

/// How a command ended, as its status frame says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code (0 for success).
    Code(i32),
    /// It could not run, or failed in a way with no exit code: the
    /// server's reason and words.
    Failed {
        /// The Status's `reason` (`InternalError`, …); may be empty.
        reason: String,
        /// The Status's `message`.
        message: String,
    },
}

impl Exit {
    /// A line for the person: `exited with status 3`, or the server's words.
    pub fn describe(&self) -> String {
        match self {
            Exit::Code(0) => "exited with status 0".into(),
            Exit::Code(c) => format!("exited with status {c}"),
            Exit::Failed { message, .. } if message.is_empty() => "ended with a failure".into(),
            Exit::Failed { message, .. } => format!("ended: {message}"),
        }
    }

    /// True when the command was never found in the container (as the
    /// kubelet, a container runtime or kwok words it), so another shell
    /// may be tried.
    pub fn not_found(&self) -> bool {
        let Exit::Failed { message, .. } = self else {
            return false;
        };
        let m = message.to_ascii_lowercase();
        [
            "no such file or directory",
            "executable file not found",
            "not found in $path",
        ]
        .iter()
        .any(|w| m.contains(w))
    }
}

#[derive(Deserialize)]
struct Status {
    #[serde(default)]
    status: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    details: Option<Details>,
}

#[derive(Deserialize)]
struct Details {
    #[serde(default)]
    causes: Vec<Cause>,
}

#[derive(Deserialize)]
struct Cause {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
}

/// Reads the error channel's `Status`: `Success` is exit code 0; a
/// `NonZeroExitCode` failure carries its code as the `ExitCode` cause;
/// anything else is a failure in the server's words. Bytes that are not a
/// Status are a failure that quotes them.
pub fn exit_of(status: &[u8]) -> Exit {
    let Ok(s) = serde_json::from_slice::<Status>(status) else {
        return Exit::Failed {
            reason: String::new(),
            message: format!(
                "the server's status is not a Status: {}",
                String::from_utf8_lossy(&status[..status.len().min(200)])
            ),
        };
    };
    if s.status == "Success" {
        return Exit::Code(0);
    }
    let code = (s.reason == "NonZeroExitCode")
        .then_some(s.details.as_ref())
        .flatten()
        .and_then(|d| d.causes.iter().find(|c| c.reason == "ExitCode"))
        .and_then(|c| c.message.parse::<i32>().ok());
    match code {
        Some(c) => Exit::Code(c),
        None => Exit::Failed {
            reason: s.reason,
            message: s.message,
        },
    }
}

/// One message from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Bytes of stdout (with a terminal, of stdout and stderr both).
    Stdout(Vec<u8>),
    /// Bytes of stderr.
    Stderr(Vec<u8>),
    /// The command ended.
    Ended(Exit),
    /// An empty message (the server's first is one) or a channel this
    /// client does not read.
    Nothing,
}

/// Reads one message.
pub fn decode(message: &[u8]) -> Frame {
    let Some((&channel, rest)) = message.split_first() else {
        return Frame::Nothing;
    };
    match channel {
        STDOUT if !rest.is_empty() => Frame::Stdout(rest.to_vec()),
        STDERR if !rest.is_empty() => Frame::Stderr(rest.to_vec()),
        ERROR => Frame::Ended(exit_of(rest)),
        _ => Frame::Nothing,
    }
}

/// A message carrying `bytes` to the command's stdin.
pub fn stdin(bytes: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(bytes.len() + 1);
    m.push(STDIN);
    m.extend_from_slice(bytes);
    m
}

/// A message telling the terminal its size.
pub fn resize(cols: u16, rows: u16) -> Vec<u8> {
    let mut m = vec![RESIZE];
    m.extend_from_slice(format!(r#"{{"Width":{cols},"Height":{rows}}}"#).as_bytes());
    m
}

/// A message closing stdin (v5 only: v4 has no way to say it).
pub fn close_stdin() -> Vec<u8> {
    vec![CLOSE, STDIN]
}
