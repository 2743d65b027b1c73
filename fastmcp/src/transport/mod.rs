//! Transports: bytes in, bytes out. They know nothing of methods.
