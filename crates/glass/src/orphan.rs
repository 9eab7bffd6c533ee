//! No kubectl outlives the launcher: on Linux the child asks the kernel for
//! SIGTERM when its parent dies, which covers the deaths the launcher cannot
//! clean up after (SIGKILL, an abort). The launcher's own exits stop it
//! first, in order, through `Drop`.

use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

/// Makes `cmd`'s process receive SIGTERM when the launcher dies.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // The launcher's pid, read before the fork: if it has already died by
    // the time the child runs, the child's parent is no longer it.
    let parent = std::process::id();
    // SAFETY: the closure runs in the child between fork and exec, and calls
    // only prctl and getppid, which are async-signal-safe; it allocates
    // nothing and touches no lock.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() as u32 != parent {
                return Err(std::io::Error::other(
                    "the launcher died while starting kubectl",
                ));
            }
            Ok(())
        });
    }
}

/// Elsewhere the launcher's own exits stop kubectl; a SIGKILL does not.
#[cfg(not(target_os = "linux"))]
pub fn die_with_parent(_cmd: &mut Command) {}

/// A process that removes `dir` when the launcher is gone, however it
/// went (SIGKILL, an abort): it waits for its stdin, a pipe only the
/// launcher holds, to close. After a normal exit the folder is gone
/// already and it only ends.
pub fn watchdog(dir: &Path) -> Option<(Child, ChildStdin)> {
    let mut child = Command::new("/bin/sh")
        .args(["-c", "read _; rm -rf -- \"$1\"", "kubectl-glass-watchdog"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdin = child.stdin.take()?;
    Some((child, stdin))
}
