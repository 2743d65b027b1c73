//! stdio: the server is a child process; messages are lines on its stdin and stdout.
