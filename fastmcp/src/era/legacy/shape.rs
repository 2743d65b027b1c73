//! Input requests adapted to a legacy session's revision: URL-mode elicitation needs an `elicitationId` on
//! the 2025-11-25 wire, and revisions before it know no `mode` for forms and no titled `oneOf` selects (they
//! get `enum` + `enumNames`).

use crate::protocol::{ElicitMode, InputRequest, ProtocolVersion};

/// `request` as a session at `version` expects it.
pub(crate) fn input_request(mut request: InputRequest, version: ProtocolVersion) -> InputRequest {
    if let InputRequest::Elicit(params) = &mut request {
        match params.mode {
            Some(ElicitMode::Url) => params.elicitation_id = Some(elicitation_id()),
            Some(ElicitMode::Form) if version < ProtocolVersion::V2025_11_25 => {
                params.mode = None;
                if let Some(schema) = &mut params.requested_schema {
                    crate::flow::legacy_enum_names(schema);
                }
            }
            _ => {}
        }
    }
    request
}

fn elicitation_id() -> String {
    crate::ids::random().unwrap_or_else(|_| {
        // Uniqueness within the session is what matters; the clock is a fallback, never a secret.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        crate::ids::hex(&nanos.as_nanos().to_le_bytes())
    })
}
