//! OAuth sign-in for a protected HTTP server: the OAuth client does the protocol (discovery, registration,
//! PKCE, the token request); this part is the person's — the authorization URL printed for them to open, and
//! the browser's redirect received on a loopback port the CLI listens on for that one request.

use crate::Failure;
use crate::args::HttpOptions;
use fastmcp::client::{AuthorizationCode, AuthorizationResponse, ClientError, ClientMetadata, OAuth, OAuthConfig};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// How long the CLI waits for the browser to come back.
const WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The OAuth client for this run. The loopback listener is bound now, so the redirect URI (registered
/// with the authorization server) names its port; it is used only if the server asks for a sign-in.
pub async fn oauth(http: &HttpOptions) -> Result<OAuth, Failure> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| Failure(format!("cannot listen for the sign-in redirect on a loopback port: {e}")))?;
    let port = listener.local_addr().map_err(|e| Failure(e.to_string()))?.port();
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");
    let listener = std::sync::Arc::new(tokio::sync::Mutex::new(listener));
    let grant = AuthorizationCode::new(redirect_uri.clone(), move |request| {
        let (listener, redirect_uri) = (listener.clone(), redirect_uri.clone());
        async move {
            eprintln!(
                "fastmcp: the server asks you to sign in. Open this address in a browser:\n\n  {}\n",
                request.url
            );
            let listener = listener.lock().await;
            match tokio::time::timeout(WAIT, receive(&listener, &redirect_uri)).await {
                Ok(response) => response,
                Err(_) => Err(ClientError::Auth(format!("no sign-in came back within {} s", WAIT.as_secs()))),
            }
        }
    });
    let mut config = OAuthConfig::authorization_code(grant).scope(http.scopes.iter().cloned());
    match &http.client_id {
        Some(id) => {
            config = config.client_id(id.clone());
            if let Some(secret) = &http.client_secret {
                config = config.client_secret(secret.clone());
            }
        }
        None => config = config.dynamic_registration(ClientMetadata::new("fastmcp CLI")),
    }
    Ok(OAuth::new(config))
}

/// The browser's one request to the redirect URI: its query is the authorization response. The page it
/// gets says to go back to the terminal.
async fn receive(listener: &TcpListener, redirect_uri: &str) -> Result<AuthorizationResponse, ClientError> {
    loop {
        let (stream, _) =
            listener.accept().await.map_err(|e| ClientError::Auth(format!("the sign-in redirect: {e}")))?;
        let (read, mut write) = stream.into_split();
        let mut line = String::new();
        BufReader::new(read)
            .read_line(&mut line)
            .await
            .map_err(|e| ClientError::Auth(format!("reading the sign-in redirect: {e}")))?;
        // `GET /callback?code=…&state=… HTTP/1.1`; anything else (a favicon) is not it.
        let target = line.split_whitespace().nth(1).unwrap_or_default();
        if !target.starts_with("/callback") {
            let _ = write.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").await;
            continue;
        }
        let origin = redirect_uri.trim_end_matches("/callback");
        let response = AuthorizationResponse::from_redirect(&format!("{origin}{target}"));
        let page = match &response {
            Ok(_) => "Signed in. You can close this tab and return to the terminal.",
            Err(_) => "The sign-in did not complete; the terminal says why.",
        };
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = write.write_all(reply.as_bytes()).await;
        return response;
    }
}
