//! The two headers of bearer authentication (RFC 6750): the token a request carries in `Authorization`,
//! and the `WWW-Authenticate` challenge a refusal answers with.

/// What a request's `Authorization` headers carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presented<'a> {
    /// No bearer token (no header, or another scheme).
    Nothing,
    /// A well-formed bearer token, as sent (not yet verified).
    Bearer(&'a str),
    /// Several `Authorization` headers, or a `Bearer` credential that is not a token: HTTP 400
    /// `invalid_request`, never a guess at which part was meant.
    Malformed(&'static str),
}

/// Reads the bearer token from a request's `Authorization` header values (RFC 6750 §2.1: the scheme is
/// case-insensitive, the token is a `b64token`). Only this header: a token in the query string or the body
/// is never looked at.
pub fn bearer_token<'a>(mut values: impl Iterator<Item = &'a [u8]>) -> Presented<'a> {
    let Some(value) = values.next() else { return Presented::Nothing };
    if values.next().is_some() {
        return Presented::Malformed("more than one Authorization header");
    }
    let Ok(value) = std::str::from_utf8(value) else { return Presented::Malformed("Authorization is not text") };
    let value = value.trim_matches(|c| c == ' ' || c == '\t');
    let (scheme, rest) = value.split_once([' ', '\t']).unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Presented::Nothing;
    }
    let token = rest.trim_start_matches([' ', '\t']);
    if is_b64token(token) { Presented::Bearer(token) } else { Presented::Malformed("the bearer token is malformed") }
}

/// `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`
fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/'))
}

/// A `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// `invalid_request`, `invalid_token` or `insufficient_scope`; none when no token was sent.
    pub error: Option<&'static str>,
    /// A human-readable reason to go with `error` (quoted on the wire; characters a header can't carry are dropped).
    pub error_description: Option<String>,
    /// The scopes the request needs, space-separated on the wire.
    pub scope: Vec<String>,
    /// Where the protected resource metadata is.
    pub resource_metadata: String,
}

impl Challenge {
    /// The header's value.
    pub fn render(&self) -> String {
        let mut params = vec![("resource_metadata", self.resource_metadata.clone())];
        if !self.scope.is_empty() {
            params.push(("scope", self.scope.join(" ")));
        }
        if let Some(error) = self.error {
            params.push(("error", error.to_owned()));
        }
        if let Some(description) = &self.error_description {
            params.push(("error_description", description.clone()));
        }
        let params: Vec<String> = params.into_iter().map(|(k, v)| format!("{k}=\"{}\"", quote(&v))).collect();
        format!("Bearer {}", params.join(", "))
    }
}

/// The inside of a quoted-string: `"` and `\` escaped, characters a header can't carry dropped.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => {}
        }
    }
    out
}

/// One challenge of a `WWW-Authenticate` value, as a client reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedChallenge {
    /// The authentication scheme (`Bearer`, `DPoP`, `Basic`), as the server spelled it: compare it case-insensitively.
    pub scheme: String,
    /// `name=value` parameters in order, names lowercased, quoted values unescaped.
    pub params: Vec<(String, String)>,
}

impl ParsedChallenge {
    /// The value of the first parameter called `name`, which must be given in lowercase (names are stored
    /// lowercased), as in `param("resource_metadata")`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// The challenges of a `WWW-Authenticate` value, in order (RFC 9110 §11.6.1). For clients and tests; `None`
/// if the value does not parse.
pub fn parse_challenges(value: &str) -> Option<Vec<ParsedChallenge>> {
    let mut out: Vec<ParsedChallenge> = Vec::new();
    let mut rest = value.trim_start();
    while !rest.is_empty() {
        let name_len = rest.find(|c: char| !is_tchar(c)).unwrap_or(rest.len());
        if name_len == 0 {
            return None;
        }
        let (name, after) = rest.split_at(name_len);
        let after_ws = after.trim_start();
        // `name=` (RFC 9110 allows spaces around `=`) is a parameter of the challenge before it; a bare name
        // starts the next challenge.
        if let Some(value_part) = after_ws.strip_prefix('=').filter(|_| !out.is_empty()) {
            let (value, tail) = param_value(value_part.trim_start())?;
            out.last_mut()?.params.push((name.to_ascii_lowercase(), value));
            rest = next_item(tail)?;
        } else {
            out.push(ParsedChallenge { scheme: name.to_owned(), params: Vec::new() });
            rest = after_ws.strip_prefix(',').unwrap_or(after_ws).trim_start();
        }
    }
    Some(out)
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// A parameter's value (a quoted-string or a token) and what follows it.
fn param_value(text: &str) -> Option<(String, &str)> {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => value.push(chars.next()?.1),
                '"' => return Some((value, &quoted[i + 1..])),
                _ => value.push(c),
            }
        }
        None
    } else {
        let len = text.find(|c: char| !is_tchar(c) && c != '/' && c != '=').unwrap_or(text.len());
        (len > 0).then(|| (text[..len].to_owned(), &text[len..]))
    }
}

/// Past the comma that separates items, or the end.
fn next_item(text: &str) -> Option<&str> {
    let text = text.trim_start();
    if text.is_empty() { Some(text) } else { text.strip_prefix(',').map(str::trim_start) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(value: &str) -> Presented<'_> {
        bearer_token(std::iter::once(value.as_bytes()))
    }

    #[test]
    fn bearer_tokens_come_from_one_authorization_header() {
        assert_eq!(bearer_token(std::iter::empty()), Presented::Nothing);
        assert_eq!(one("Bearer abc.DEF-_~+/=="), Presented::Bearer("abc.DEF-_~+/=="));
        assert_eq!(one("bearer   tok"), Presented::Bearer("tok"));
        assert_eq!(one("BEARER\ttok "), Presented::Bearer("tok"));
        assert_eq!(one("Basic dXNlcjpwdw=="), Presented::Nothing);
        assert_eq!(one("Bearertok"), Presented::Nothing);
        for bad in ["Bearer", "Bearer ", "Bearer a b", "Bearer a,b", "Bearer =abc", "Bearer a\"b", "Bearer ä"] {
            assert!(matches!(one(bad), Presented::Malformed(_)), "{bad:?}");
        }
        let two = [b"Bearer a".as_slice(), b"Bearer b".as_slice()];
        assert!(matches!(bearer_token(two.into_iter()), Presented::Malformed(_)));
        assert!(matches!(bearer_token(std::iter::once(&b"Bearer \xff"[..])), Presented::Malformed(_)));
    }

    #[test]
    fn challenges_render_as_rfc_6750_says() {
        let challenge = Challenge {
            error: Some("insufficient_scope"),
            error_description: Some("needs \"deploy\"\n".into()),
            scope: vec!["deploy:write".into(), "admin".into()],
            resource_metadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp".into(),
        };
        assert_eq!(
            challenge.render(),
            "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", \
             scope=\"deploy:write admin\", error=\"insufficient_scope\", error_description=\"needs \\\"deploy\\\"\""
        );
        let parsed = parse_challenges(&challenge.render()).expect("parses");
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].scheme, "Bearer");
        assert_eq!(parsed[0].param("scope"), Some("deploy:write admin"));
        assert_eq!(parsed[0].param("error_description"), Some("needs \"deploy\""));
    }

    #[test]
    fn several_challenges_and_bare_values_parse() {
        let parsed = parse_challenges(r#"Basic realm="x", Bearer error=invalid_token, scope="a b""#).expect("parses");
        assert_eq!((parsed[0].scheme.as_str(), parsed[0].param("realm")), ("Basic", Some("x")));
        assert_eq!(parsed[1].scheme, "Bearer");
        assert_eq!(parsed[1].params, [("error".into(), "invalid_token".into()), ("scope".into(), "a b".into())]);
        assert_eq!(parse_challenges("Bearer"), Some(vec![ParsedChallenge { scheme: "Bearer".into(), params: vec![] }]));
        assert_eq!(parse_challenges(r#"Bearer realm="unterminated"#), None);
    }
}

/// Properties over arbitrary input: reading a header never panics, every token RFC 6750 allows reads back
/// as itself, and every challenge this server renders parses back to what it said.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn b64token() -> impl Strategy<Value = String> {
        "[A-Za-z0-9._~+/-]{1,64}={0,2}"
    }

    proptest! {
        #[test]
        fn any_header_value_reads_without_panicking(value in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = bearer_token(std::iter::once(value.as_slice()));
        }

        #[test]
        fn a_b64token_reads_back_whatever_the_scheme_case_and_spacing(
            token in b64token(),
            scheme in "(?i)bearer",
            space in "[ \t]{1,3}",
        ) {
            let value = format!("{scheme}{space}{token}");
            prop_assert_eq!(bearer_token(std::iter::once(value.as_bytes())), Presented::Bearer(&token));
        }

        #[test]
        fn a_token_with_any_other_character_is_malformed(
            head in b64token(),
            bad in "[ ,;\"\\\\()<>@:?\\[\\]{}]",
            tail in b64token(),
        ) {
            let value = format!("Bearer {}{bad}{tail}", head.trim_end_matches('='));
            prop_assert!(matches!(bearer_token(std::iter::once(value.as_bytes())), Presented::Malformed(_)), "{}", value);
        }

        #[test]
        fn rendered_challenges_parse_back(
            description in "[ -~]{0,80}",
            scopes in proptest::collection::vec("[!#-\\[\\]-~]{1,12}", 0..4),
            path in "(/[a-z0-9]{1,8}){0,3}",
        ) {
            let challenge = Challenge {
                error: Some("insufficient_scope"),
                error_description: Some(description.clone()),
                scope: scopes.clone(),
                resource_metadata: format!("https://mcp.example.com/.well-known/oauth-protected-resource{path}"),
            };
            let parsed = parse_challenges(&challenge.render()).expect("parses");
            prop_assert_eq!(parsed.len(), 1);
            prop_assert_eq!(parsed[0].param("error_description"), Some(description.as_str()));
            prop_assert_eq!(parsed[0].param("resource_metadata"), Some(challenge.resource_metadata.as_str()));
            prop_assert_eq!(parsed[0].param("scope").map(str::to_owned), (!scopes.is_empty()).then(|| scopes.join(" ")));
        }

        #[test]
        fn any_text_parses_or_is_refused_without_panicking(value in "\\PC{0,120}") {
            let _ = parse_challenges(&value);
        }
    }
}
