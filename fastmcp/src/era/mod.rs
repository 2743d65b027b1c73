//! Era adapters: turn an inbound message into a dispatchable request (legacy session or modern envelope),
//! and dispatch's outcome back into that era's wire result.
