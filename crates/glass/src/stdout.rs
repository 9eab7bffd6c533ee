//! A closed standard output ends the run: `kubectl glass | head -1` stops
//! once `head` has gone, however the heading's writes fell.
//!
//! A write fails only if it comes after the reader has gone, and the
//! heading is the launcher's last write: when `head` leaves after it has
//! read the heading, no write ever fails. So the launcher asks the kernel
//! (`poll`, no wait, no events asked for) whether the pipe still has a
//! reader: a pipe whose reader has gone reports `POLLERR`, a socket whose
//! peer has gone `POLLHUP`. A terminal, a file or `/dev/null` reports
//! neither (a terminal that hangs up sends SIGHUP, which stops it too).

use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

/// True when standard output leads nowhere any more.
pub fn reader_gone() -> bool {
    reader_gone_on(std::io::stdout().as_fd())
}

/// True when `fd` is a pipe or socket whose other end has closed.
pub fn reader_gone_on(fd: BorrowedFd<'_>) -> bool {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: 0,
        revents: 0,
    };
    // SAFETY: `p` is one valid `pollfd` on the stack and the count is 1;
    // poll only writes its `revents`, and with a timeout of 0 returns at
    // once. `fd` is borrowed, so it is open for the call.
    #[allow(unsafe_code)]
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n > 0 && p.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    use super::*;

    #[test]
    fn a_pipe_whose_reader_left_after_the_first_line_is_gone() {
        let (mut reader, mut writer) = std::io::pipe().expect("pipe");
        assert!(!reader_gone_on(writer.as_fd()), "a reader is there");
        writer
            .write_all(b"Kubeglass for context \"x\":\n")
            .expect("write");
        writer
            .write_all(b"  http://127.0.0.1:1/t/ui/\n")
            .expect("write");
        let mut first = [0u8; 1];
        reader.read_exact(&mut first).expect("read");
        assert!(!reader_gone_on(writer.as_fd()), "unread bytes, a reader");
        drop(reader);
        assert!(reader_gone_on(writer.as_fd()), "no write failed, and yet");
    }

    #[test]
    fn a_socket_whose_peer_left_is_gone() {
        let (ours, theirs) = UnixStream::pair().expect("socketpair");
        assert!(!reader_gone_on(ours.as_fd()));
        drop(theirs);
        assert!(reader_gone_on(ours.as_fd()));
    }

    #[test]
    fn a_file_never_is() {
        let f = tempfile::tempfile().expect("file");
        assert!(!reader_gone_on(f.as_fd()));
        let null = std::fs::File::create("/dev/null").expect("/dev/null");
        assert!(!reader_gone_on(null.as_fd()));
    }
}
