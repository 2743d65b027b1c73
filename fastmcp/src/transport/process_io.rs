//! The process's stdin and stdout as async byte streams.
//!
//! tokio's `stdin()`/`stdout()` do every read and write on the blocking pool: a thread hop each way per
//! message. An MCP client starts a stdio server with pipes, and a pipe can be read and written without
//! blocking, straight from the runtime's reactor, as a socket is. So a pipe is served that way; anything
//! else (a terminal, a file) falls back to tokio's own. stdout stays blocking when stderr is the same pipe,
//! so that the logs written to stderr never meet a full pipe they do not expect.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The process's stdin.
pub(crate) enum Input {
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Receiver),
    Std(tokio::io::Stdin),
}

/// The process's stdout.
pub(crate) enum Output {
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Sender),
    Std(tokio::io::Stdout),
}

/// stdin and stdout, as pipes where they are. Needs a runtime with I/O enabled (to register the pipes).
pub(crate) fn stdio() -> (Input, Output) {
    #[cfg(unix)]
    {
        (unix::input().map_or_else(|| Input::Std(tokio::io::stdin()), Input::Pipe), unix::output())
    }
    #[cfg(not(unix))]
    {
        (Input::Std(tokio::io::stdin()), Output::Std(tokio::io::stdout()))
    }
}

#[cfg(unix)]
mod unix {
    use super::Output;
    use std::fs::File;
    use std::os::fd::{AsFd, BorrowedFd};
    use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
    use tokio::net::unix::pipe;

    /// A duplicate of `fd` as a file, if it is a pipe.
    fn pipe_file(fd: BorrowedFd<'_>) -> Option<File> {
        let file = File::from(fd.try_clone_to_owned().ok()?);
        file.metadata().ok()?.file_type().is_fifo().then_some(file)
    }

    pub(super) fn input() -> Option<pipe::Receiver> {
        pipe::Receiver::from_file(pipe_file(std::io::stdin().as_fd())?).ok()
    }

    pub(super) fn output() -> Output {
        let stdout = pipe_file(std::io::stdout().as_fd());
        let same_as_stderr = |out: &File| {
            let err = std::io::stderr().as_fd().try_clone_to_owned().ok().map(File::from);
            let id = |f: &File| f.metadata().ok().map(|m| (m.dev(), m.ino()));
            err.is_some_and(|err| id(&err).is_some() && id(&err) == id(out))
        };
        match stdout.filter(|out| !same_as_stderr(out)).and_then(|out| pipe::Sender::from_file(out).ok()) {
            Some(pipe) => Output::Pipe(pipe),
            None => Output::Std(tokio::io::stdout()),
        }
    }
}

impl AsyncRead for Input {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Input::Pipe(pipe) => Pin::new(pipe).poll_read(cx, buf),
            Input::Std(std) => Pin::new(std).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_write(cx, buf),
            Output::Std(std) => Pin::new(std).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_write_vectored(cx, bufs),
            Output::Std(std) => Pin::new(std).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            #[cfg(unix)]
            Output::Pipe(pipe) => pipe.is_write_vectored(),
            Output::Std(std) => std.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_flush(cx),
            Output::Std(std) => Pin::new(std).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_shutdown(cx),
            Output::Std(std) => Pin::new(std).poll_shutdown(cx),
        }
    }
}
