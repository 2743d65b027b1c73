// A real OAuth 2.1 authorization server for the integration tests: oauth2-mock-server (the npm package),
// made aware of resource indicators (RFC 8707), plus a control plane for tests under /__test/.
//
//   node tests/auth/mock-as.mjs [NODE_MODULES_DIR]
//
// NODE_MODULES_DIR holds the installed package (default: target/oauth2-mock-server/node_modules of this
// repository; the Rust harness `fastmcp_tests::oauth::MockAs` installs it there). Listens on an ephemeral
// loopback port, prints `oauth2-mock-server listening on http://127.0.0.1:PORT` (the issuer) once ready,
// and runs until its stdin closes or it gets SIGTERM/SIGINT. Logs go to stderr.
//
// What the package serves, as it is: GET /.well-known/openid-configuration (OIDC discovery), GET /jwks,
// POST /token (client_credentials, password, authorization_code, refresh_token), GET /authorize,
// GET /userinfo, POST /revoke, GET /endsession, POST /introspect.
//
// What this script adds:
// - GET /.well-known/oauth-authorization-server (RFC 8414): the same document as the OIDC one; the package
//   itself answers 404 there.
// - POST /token with `resource=<absolute URI>` (RFC 8707, repeatable): the access token's `aud` is that
//   resource (an array when several); a resource that is not an absolute URI without a fragment is refused
//   with 400 `invalid_target`. `sub` comes from the form field `sub`, else the client id (HTTP Basic user
//   or `client_id`); `client_id` is a claim too. `scope` is the requested scope, as the package sets it; for
//   the authorization code grant, the scope asked for at /authorize.
// - New tokens are always signed with the current key (the package alone picks keys round-robin).
// - The test control plane (only for tests; JSON in, JSON out):
//   POST /__test/mint    {claims, alg, kid, sign_with, expires_in, not_before_in, header, hmac_secret}
//                        -> {token, alg, kid}
//   POST /__test/rotate  {alg}  -> {kid, alg}: a new key, published in /jwks and used for new tokens.
//   GET  /__test/keys           -> {current, keys: [{kid, alg}]}
//   See `mint` below for what each option does.

import { createServer } from "node:http";
import { createHmac, createPublicKey } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = resolve(process.argv[2] ?? join(here, "..", "..", "target", "oauth2-mock-server", "node_modules"));
const requireThere = createRequire(join(modules, "..", "package.json"));
let entry;
try {
  entry = requireThere.resolve("oauth2-mock-server");
} catch (e) {
  console.error(`mock-as: oauth2-mock-server is not installed under ${modules} (${e.message})`);
  process.exit(2);
}
const { OAuth2Issuer, OAuth2Service } = await import(pathToFileURL(entry).href);
const basicAuth = (await import(pathToFileURL(requireThere.resolve("basic-auth")).href)).default;

/** The asymmetric algorithms the package can generate keys for. */
const SIGNING_ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const HMAC_ALGS = { HS256: "sha256", HS384: "sha384", HS512: "sha512" };

/** An issuer whose tokens are signed with one chosen key unless a kid is asked for. */
class PinnedIssuer extends OAuth2Issuer {
  current = undefined;
  async buildToken(opts) {
    return super.buildToken({ ...opts, kid: opts?.kid ?? this.current });
  }
}

const issuer = new PinnedIssuer();
issuer.current = (await issuer.keys.generate("RS256")).kid;
// Keys that are NOT in the JWKS, one per algorithm, for tokens with a bad signature. Same issuer URL.
const rogue = new OAuth2Issuer();

const service = new OAuth2Service(issuer);
const app = service.requestHandler;

// --- /token: resource indicators, sub and client_id ---------------------------------------------------
const shaped = new WeakSet(); // the first token built for a request is its access token (then an id_token)
// The authorization code grant: the scope asked for at /authorize, by the code it was granted with (the
// package alone leaves it out of the token).
const scopeOfCode = new Map();
service.on("beforeAuthorizeRedirect", (redirect, req) => {
  const code = redirect.url.searchParams.get("code");
  if (code && typeof req.query?.scope === "string") scopeOfCode.set(code, req.query.scope);
});
service.on("beforeTokenSigning", (token, req) => {
  if (shaped.has(req)) return;
  shaped.add(req);
  const body = req.body ?? {};
  if (body.grant_type === "authorization_code" && scopeOfCode.has(body.code)) {
    token.payload.scope = scopeOfCode.get(body.code);
    scopeOfCode.delete(body.code);
  }
  const resources = list(body.resource);
  if (resources.length > 0) token.payload.aud = resources.length === 1 ? resources[0] : resources;
  const clientId = basicAuth(req)?.name ?? body.client_id;
  if (typeof clientId === "string") token.payload.client_id = clientId;
  if (typeof body.sub === "string") token.payload.sub = body.sub;
  else if (token.payload.sub === undefined && typeof clientId === "string") token.payload.sub = clientId;
});
service.on("beforeResponse", (response, req) => {
  const bad = list(req.body?.resource).find((r) => !isAbsoluteUriWithoutFragment(r));
  if (bad !== undefined) {
    response.statusCode = 400;
    response.body = { error: "invalid_target", error_description: `resource ${JSON.stringify(bad)} is not an absolute URI without a fragment` };
  }
});

function list(value) {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function isAbsoluteUriWithoutFragment(text) {
  try {
    return typeof text === "string" && !text.includes("#") && new URL(text).protocol !== "";
  } catch {
    return false;
  }
}

// --- the control plane --------------------------------------------------------------------------------
class BadRequest extends Error {}

/** A key of this algorithm in a store: the current one if it fits, else the first such, else a new one. */
async function keyFor(store, alg, preferred) {
  const keys = store.keys.toJSON(true);
  const found = keys.find((k) => k.kid === preferred && k.alg === alg) ?? keys.find((k) => k.alg === alg);
  return found ?? (await store.keys.generate(alg));
}

const now = () => Math.floor(Date.now() / 1000);
const b64url = (value) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

/**
 * POST /__test/mint. Every field is optional:
 * - claims: merged over the defaults {iss: the issuer, iat: now, nbf: now - 10, exp: now + 3600}; a claim
 *   set to null is left out (a token without `exp`, say). aud, sub, scope, client_id: whatever is given.
 * - expires_in: seconds from now for `exp` (negative: already expired). not_before_in: seconds from now
 *   for `nbf` (positive: not yet valid). Explicit claims win over both.
 * - alg: an asymmetric algorithm (default: the current key's, RS256) signs with a published key of that
 *   algorithm (generated and added to /jwks on first use when none is there yet); "none" makes an unsigned
 *   token (header alg "none", empty signature); HS256/HS384/HS512 signs with HMAC using `hmac_secret`
 *   (default: the current public key as PEM, the classic key-confusion attack).
 * - sign_with: "current" (default), a kid from /jwks, or "untrusted": a key that is NOT in /jwks (its own
 *   kid is not there either, unless `kid` says otherwise), so the signature does not verify.
 * - kid: the header's kid instead of the signing key's (a kid of /jwks with sign_with "untrusted" claims a
 *   trusted key with a signature it did not make; an unknown kid with a trusted key); null: no kid header.
 * - header: more header parameters (typ, ...); alg is always the one used.
 * Answers {token, alg, kid}.
 */
async function mint(options) {
  const { claims = {}, alg, kid, sign_with: signWith = "current", expires_in, not_before_in, header = {} } = options;
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) throw new BadRequest("claims must be an object");
  const t = now();
  const payload = { iss: issuer.url, iat: t, nbf: t - 10, exp: t + 3600 };
  if (expires_in !== undefined) payload.exp = t + Number(expires_in);
  if (not_before_in !== undefined) payload.nbf = t + Number(not_before_in);
  Object.assign(payload, claims);
  for (const [k, v] of Object.entries(payload)) if (v === null) delete payload[k];

  if (alg === "none" || alg in HMAC_ALGS) {
    const head = { typ: "JWT", ...header, alg };
    if (typeof kid === "string") head.kid = kid;
    const input = `${b64url(head)}.${b64url(payload)}`;
    if (alg === "none") return { token: `${input}.`, alg, kid: head.kid ?? null };
    const secret = options.hmac_secret ?? currentPublicPem();
    const signature = createHmac(HMAC_ALGS[alg], secret).update(input).digest("base64url");
    return { token: `${input}.${signature}`, alg, kid: head.kid ?? null };
  }

  if (alg !== undefined && !SIGNING_ALGS.includes(alg)) throw new BadRequest(`alg ${JSON.stringify(alg)} is not supported`);
  const trusted = issuer.keys.toJSON(true);
  let key;
  let store = issuer;
  if (signWith === "untrusted") {
    store = rogue;
    key = await keyFor(rogue, alg ?? "RS256");
  } else if (signWith === "current") {
    const current = trusted.find((k) => k.kid === issuer.current);
    key = alg === undefined || alg === current.alg ? current : await keyFor(issuer, alg, issuer.current);
  } else {
    key = trusted.find((k) => k.kid === signWith);
    if (key === undefined) throw new BadRequest(`sign_with: no key ${JSON.stringify(signWith)} in the JWKS`);
    if (alg !== undefined && alg !== key.alg) throw new BadRequest(`sign_with: key ${signWith} is ${key.alg}, not ${alg}`);
  }
  rogue.url = issuer.url;
  const token = await store.buildToken({
    kid: key.kid,
    scopesOrTransform: (head, body) => {
      for (const k of Object.keys(body)) delete body[k];
      Object.assign(body, payload);
      Object.assign(head, header);
      if (kid === null) delete head.kid;
      else if (typeof kid === "string") head.kid = kid;
    },
  });
  return { token, alg: key.alg, kid: kid === undefined ? key.kid : kid };
}

function currentPublicPem() {
  const jwk = issuer.keys.toJSON().find((k) => k.kid === issuer.current);
  return createPublicKey({ key: jwk, format: "jwk" }).export({ type: "spki", format: "pem" });
}

/** POST /__test/rotate {alg?}: a new key (default: the current key's algorithm), now the signing one. */
async function rotate(options) {
  const current = issuer.keys.toJSON().find((k) => k.kid === issuer.current);
  const alg = options.alg ?? current.alg;
  if (!SIGNING_ALGS.includes(alg)) throw new BadRequest(`alg ${JSON.stringify(alg)} is not supported`);
  const key = await issuer.keys.generate(alg);
  issuer.current = key.kid;
  return { kid: key.kid, alg: key.alg };
}

function keys() {
  return { current: issuer.current, keys: issuer.keys.toJSON().map(({ kid, alg }) => ({ kid, alg })) };
}

const control = {
  "POST /__test/mint": mint,
  "POST /__test/rotate": rotate,
  "GET /__test/keys": keys,
};

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new BadRequest(`body is not JSON: ${e.message}`);
  }
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), "Cache-Control": "no-store" });
  res.end(text);
}

const server = createServer(async (req, res) => {
  const path = new URL(req.url, "http://localhost").pathname;
  if (path.startsWith("/__test/")) {
    const handler = control[`${req.method} ${path}`];
    if (handler === undefined) return send(res, 404, { error: "not_found", error_description: `${req.method} ${path}` });
    try {
      send(res, 200, await handler(await readJson(req)));
    } catch (e) {
      if (!(e instanceof BadRequest)) console.error("mock-as:", e);
      send(res, e instanceof BadRequest ? 400 : 500, { error: "invalid_request", error_description: e.message });
    }
    return;
  }
  if (path === "/.well-known/oauth-authorization-server") req.url = "/.well-known/openid-configuration";
  app(req, res);
});

await new Promise((ready, fail) => server.listen(0, "127.0.0.1").once("listening", ready).once("error", fail));
issuer.url = `http://127.0.0.1:${server.address().port}`;

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.stdin.on("end", stop).on("close", stop).on("error", stop).resume();

process.stdout.write(`oauth2-mock-server listening on ${issuer.url}\n`);
