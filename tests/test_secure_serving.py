"""Secure serving without an API server: the delegating authenticator's and authorizer's caches,
the guard's answers, the flags' checks (loopback-only plain HTTP), the serving certificate, the
client's one-line errors and /metrics negotiation, over real sockets where a socket is involved.
The same against a real kube-apiserver: tests/e2e/test_secure_serving_e2e.py."""

from __future__ import annotations

import gzip
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from kubeberth.apps.httpserver import HTTPServer, Request
from kubeberth.apps.observability_routes import metrics_route
from kubeberth.apps.serving.authn import TokenReviewAuthenticator, UserInfo, bearer_token
from kubeberth.apps.serving.authz import PathMatcher, SubjectAccessReviewAuthorizer
from kubeberth.apps.serving.certs import server_context, write_self_signed
from kubeberth.apps.serving.client import ServerAuth, explain_failure, open_server
from kubeberth.apps.serving.guard import DelegatingGuard
from kubeberth.apps.serving.options import insecure_bind_address, is_loopback, secure_serving_options
from kubeberth.apps.serving.reviews import BACKOFF_STEPS, ReviewError, retrying
from kubeberth.apps.serving.ttlcache import TTLCache
from kubeberth.backends.kubernetes.client import ApiError
from kubeberth.errors import KubeberthError
from kubeberth.observability.exposition import accepts_gzip
from kubeberth.observability.metrics import SchedulerMetrics


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class ApiServer:
    """Answers TokenReviews from a token table and SubjectAccessReviews from a (user, path, verb)
    set, recording each review it was asked (the part of kube-apiserver the caches sit in front of)."""

    def __init__(self) -> None:
        self.tokens = {"reader-token": {"username": "system:serviceaccount:ns:reader", "uid": "u1", "groups": ["g"]},
                       "nobody-token": {"username": "system:serviceaccount:ns:nobody", "groups": []},
                       "master-token": {"username": "admin", "groups": ["system:masters"]}}
        self.rights = {("system:serviceaccount:ns:reader", "/metrics", "get")}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.down = False

    def __call__(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((path, body))
        if self.down:
            raise ReviewError("503 unavailable")
        spec = body["spec"]
        if body["kind"] == "TokenReview":
            user = self.tokens.get(spec["token"])
            return {"status": {"authenticated": True, "user": user} if user else {"error": "token expired"}}
        attrs = spec["nonResourceAttributes"]
        return {"status": {"allowed": (spec["user"], attrs["path"], attrs["verb"]) in self.rights}}

    def kinds(self) -> list[str]:
        return [body["kind"] for _path, body in self.calls]


# ---- caches ------------------------------------------------------------------------------------
def test_ttl_cache_expires_and_stays_bounded() -> None:
    clock = Clock()
    cache: TTLCache[str] = TTLCache(max_entries=3, clock=clock)
    cache.put("a", "A", 10)
    clock.now += 9.9
    assert cache.get("a") == "A"
    clock.now += 0.1
    assert cache.get("a") is None
    cache.put("zero", "Z", 0)
    assert cache.get("zero") is None
    for key in "bcde":
        cache.put(key, key.upper(), 10)
    assert len(cache) == 3 and cache.get("b") is None and cache.get("e") == "E"


def test_token_answers_are_cached_for_the_ttl_and_errors_are_not() -> None:
    api, clock = ApiServer(), Clock()
    authn = TokenReviewAuthenticator(api, cache_ttl=10, clock=clock)
    assert authn.authenticate("reader-token").user == UserInfo("system:serviceaccount:ns:reader", "u1", ("g",))
    assert authn.authenticate("reader-token").user is not None
    bad = authn.authenticate("stolen")
    assert bad.user is None and bad.error == "token expired"
    assert authn.authenticate("stolen").user is None
    assert api.kinds() == ["TokenReview", "TokenReview"]  # one review per token within the TTL
    clock.now += 10
    authn.authenticate("reader-token")
    assert len(api.calls) == 3
    api.down = True
    with pytest.raises(ReviewError):
        authn.authenticate("nobody-token")
    api.down = False
    assert authn.authenticate("nobody-token").user is not None  # the failure was not remembered
    assert all("reader-token" not in str(key) for key in authn.cache._entries)  # keyed by a hash


def test_access_answers_have_their_own_ttls_and_masters_skip_the_review() -> None:
    api, clock = ApiServer(), Clock()
    authz = SubjectAccessReviewAuthorizer(api, allow_ttl=10, deny_ttl=2, clock=clock)
    reader = UserInfo("system:serviceaccount:ns:reader", "u1", ("g",), (("scopes", ("a",)),))
    assert authz.authorize(reader, "/metrics", "get").allowed
    assert not authz.authorize(reader, "/reload", "create").allowed
    review = api.calls[0][1]
    assert api.calls[0][0] == "/apis/authorization.k8s.io/v1/subjectaccessreviews"
    assert review["spec"] == {"user": reader.name, "groups": ["g"], "uid": "u1", "extra": {"scopes": ["a"]},
                              "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}
    clock.now += 5  # the denial expired, the permission did not
    authz.authorize(reader, "/metrics", "get")
    authz.authorize(reader, "/reload", "create")
    assert len(api.calls) == 3
    assert authz.authorize(UserInfo("admin", groups=("system:masters",)), "/reload", "create").allowed
    assert len(api.calls) == 3


def test_reviews_are_retried_on_transient_failures_only() -> None:
    answers: list[Any] = [ApiError(0, "connection refused"), ApiError(429, "slow down"), ApiError(503, "x"), {"ok": 1}]
    sleeps: list[float] = []

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert retrying(post, sleeps.append)("/p", {}) == {"ok": 1}
    assert sleeps == [0.5, 0.75, 1.125]
    answers[:] = [ApiError(403, "forbidden: cannot create tokenreviews"), {"ok": 1}]
    with pytest.raises(ReviewError, match="403"):
        retrying(post, sleeps.append)("/p", {})
    answers[:] = [ApiError(500, "boom")] * BACKOFF_STEPS
    with pytest.raises(ReviewError, match="500"):
        retrying(post, lambda _s: None)("/p", {})
    assert answers == []


# ---- the guard ---------------------------------------------------------------------------------
def guard(api: ApiServer, paths: tuple[str, ...] = ("/healthz", "/readyz", "/livez")) -> DelegatingGuard:
    return DelegatingGuard(TokenReviewAuthenticator(api), SubjectAccessReviewAuthorizer(api), PathMatcher(paths))


def ask(g: DelegatingGuard, path: str, token: str | None = None, method: str = "GET") -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    result = g(Request(method, path, headers=headers, client="10.0.0.9"))
    if isinstance(result, Request):
        assert result.authorized
        return 200, result.user or ""
    return result.status, result.body.decode()


def test_guard_answers_401_403_or_lets_through() -> None:
    api = ApiServer()
    g = guard(api)
    assert ask(g, "/healthz") == (200, "") and ask(g, "/livez", "stolen") == (200, "")
    assert api.calls == []  # open paths cost no review
    status, body = ask(g, "/metrics")
    assert status == 401 and "no bearer token" in body
    status, body = ask(g, "/metrics", "stolen")
    assert status == 401 and "token expired" in body
    status, body = ask(g, "/metrics", "nobody-token")
    assert status == 403 and body == 'forbidden: User "system:serviceaccount:ns:nobody" cannot get path "/metrics"\n'
    assert ask(g, "/metrics", "reader-token") == (200, "system:serviceaccount:ns:reader")
    status, body = ask(g, "/reload", "reader-token", method="POST")
    assert status == 403 and "cannot create path" in body
    assert ask(g, "/reload", "master-token", method="POST") == (200, "admin")
    api.down = True
    assert ask(g, "/debug/generation", "fresh")[0] == 401
    assert ask(guard(api, ("/debug/*",)), "/debug/decisions/a/b")[0] == 200


def test_bearer_token_and_path_matcher() -> None:
    assert bearer_token("Bearer abc ") == "abc" and bearer_token("bearer abc") == "abc"
    assert bearer_token("Basic abc") == "" and bearer_token("") == ""
    match = PathMatcher(["/healthz", "/debug/*"])
    assert match("/healthz") and match("/debug/x/y") and not match("/healthz/x") and not match("/metrics")


# ---- flags -------------------------------------------------------------------------------------
@pytest.mark.parametrize("address", ["127.0.0.1:10260", "127.0.0.5:1", "[::1]:10260", "localhost:10260"])
def test_plain_http_accepts_loopback(address: str) -> None:
    assert insecure_bind_address(address, embedded=False) == address


@pytest.mark.parametrize("address", ["0.0.0.0:10260", "10.1.2.3:10260", ":10260", "[::]:10260", "example.com:1"])
def test_plain_http_refuses_other_addresses(address: str) -> None:
    with pytest.raises(KubeberthError, match="^--healthz-bind-address: .*not a loopback address"):
        insecure_bind_address(address, embedded=False)


def test_serving_defaults() -> None:
    assert insecure_bind_address(None, embedded=True) == "127.0.0.1:10260"
    assert insecure_bind_address(None, embedded=False) is None
    assert is_loopback("::1") and not is_loopback("0.0.0.0")
    options = secure_serving_options(SimpleNamespace(), embedded=False)
    assert options is not None and options.address == "0.0.0.0:10259"
    assert options.always_allow_paths == ("/healthz", "/readyz", "/livez")
    assert secure_serving_options(SimpleNamespace(secure_port=0), embedded=False) is None
    assert secure_serving_options(SimpleNamespace(), embedded=True) is None
    v6 = secure_serving_options(SimpleNamespace(bind_address="::", authorization_always_allow_paths=""), embedded=False)
    assert v6 is not None and v6.address == "[::]:10259" and v6.always_allow_paths == ()


@pytest.mark.parametrize(("flags", "message"), [
    ({"secure_port": 70000}, "--secure-port: expected 0"),
    ({"bind_address": "pod-ip"}, "--bind-address: expected an IP address"),
    ({"tls_cert_file": "/etc/hosts"}, "--tls-cert-file and --tls-private-key-file: give both"),
    ({"tls_cert_file": "/nope.crt", "tls_private_key_file": "/nope.key"}, "--tls-cert-file: /nope.crt: no such file"),
    ({"authentication_kubeconfig": "/nope"}, "--authentication-kubeconfig: /nope: no such file"),
    ({"authorization_always_allow_paths": "/healthz,metrics"}, "--authorization-always-allow-paths: 'metrics'"),
])
def test_bad_serving_flags_name_the_flag(flags: dict[str, Any], message: str) -> None:
    with pytest.raises(KubeberthError, match=f"^{message}"):
        secure_serving_options(SimpleNamespace(**flags), embedded=False)


def test_embedded_run_refuses_a_secure_port() -> None:
    with pytest.raises(KubeberthError, match="^--secure-port: run --embedded has no API server"):
        secure_serving_options(SimpleNamespace(secure_port=10259), embedded=True)


@pytest.mark.parametrize("argv", [["--healthz-bind-address=0.0.0.0:10260"], ["--embedded", "--secure-port=10259"],
                                  ["--secure-port=-1"]])
def test_run_with_a_bad_serving_flag_is_one_line_and_exit_2(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kubeberth.apps.cli import main

    assert main(["run", "--kubeconfig", str(tmp_path / "none"), *argv]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --"), err
    assert argv[-1].split("=")[0] in lines[0]


# ---- certificate, listeners, client ------------------------------------------------------------
@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[HTTPServer, str, str, Path]]:
    """The same routes over HTTPS (certificate kept in --cert-dir, a guard in front) and plain HTTP."""
    api = ApiServer()
    http = HTTPServer("127.0.0.1:0")
    http.add_route("/healthz", lambda: (200, "text/plain", b"ok"))
    http.add_route("/debug/generation", lambda: (200, "application/json", b'{"id": "g1"}'))
    http.add_request_route("/metrics", metrics_route(SchedulerMetrics().registries))
    secure = http.add_listener("127.0.0.1:0", tls=server_context(None, None, str(tmp_path / "certs")), guard=guard(api))
    http.start()
    try:
        yield http, f"https://127.0.0.1:{http.port_of(secure)}", f"http://127.0.0.1:{http.port}", tmp_path / "certs"
    finally:
        http.stop()


def test_self_signed_certificate_is_kept_in_cert_dir_and_verifies(served: tuple[HTTPServer, str, str, Path]) -> None:
    _http, https, _plain, certs = served
    crt, key = certs / "kubeberth.crt", certs / "kubeberth.key"
    assert (certs.stat().st_mode & 0o777) == 0o700 and (key.stat().st_mode & 0o777) == 0o600
    assert crt.read_text().count("BEGIN CERTIFICATE") == 2  # the serving certificate, then its CA
    ca = ServerAuth(certificate_authority=str(crt))
    assert open_server(https + "/healthz", ca, 5) == b"ok"
    assert open_server(https.replace("127.0.0.1", "localhost") + "/healthz", ca, 5) == b"ok"
    with pytest.raises(urllib.error.URLError) as err:
        open_server(https + "/healthz", ServerAuth(), 5)
    assert "--certificate-authority FILE or --insecure-skip-tls-verify" in (explain_failure(err.value, "u", ServerAuth()) or "")
    assert open_server(https + "/healthz", ServerAuth(insecure_skip_tls_verify=True), 5) == b"ok"
    before = crt.read_bytes()
    server_context(None, None, str(certs))  # reused on the next start, not regenerated
    assert crt.read_bytes() == before


def test_given_certificate_and_key(tmp_path: Path) -> None:
    write_self_signed(tmp_path / "tls.crt", tmp_path / "tls.key", hosts=("kubeberth.kube-system.svc",))
    assert isinstance(server_context(str(tmp_path / "tls.crt"), str(tmp_path / "tls.key"), None), ssl.SSLContext)
    with pytest.raises(KubeberthError, match="^--tls-cert-file/--tls-private-key-file: cannot load"):
        server_context(str(tmp_path / "tls.key"), str(tmp_path / "tls.key"), None)


def test_client_errors_say_what_is_missing(served: tuple[HTTPServer, str, str, Path]) -> None:
    _http, https, plain, certs = served
    ca = str(certs / "kubeberth.crt")
    cases = [(ServerAuth(None, ca), "401 Unauthorized: no token; pass --token or set KUBEBERTH_TOKEN"),
             (ServerAuth("stolen", ca), "401 Unauthorized: the token was not accepted (Unauthorized: invalid bearer token"),
             (ServerAuth("nobody-token", ca), '403 Forbidden (forbidden: User "system:serviceaccount:ns:nobody" cannot get '
                                              'path "/debug/generation"); the token\'s user needs a ClusterRole')]
    for auth, message in cases:
        with pytest.raises(urllib.error.HTTPError) as err:
            open_server(https + "/debug/generation", auth, 5)
        assert message in (explain_failure(err.value, "u", auth) or ""), message
    assert open_server(https + "/metrics", ServerAuth("reader-token", ca), 5).startswith(b"# HELP")
    assert open_server(plain + "/debug/generation", ServerAuth(), 5) == b'{"id": "g1"}'  # plain HTTP: no guard


# ---- /metrics negotiation ----------------------------------------------------------------------
def test_accepts_gzip() -> None:
    assert accepts_gzip("gzip") and accepts_gzip("deflate, gzip;q=0.5") and accepts_gzip("*")
    assert not accepts_gzip("") and not accepts_gzip("gzip;q=0") and not accepts_gzip("identity, br")


def test_metrics_gzip_and_openmetrics(served: tuple[HTTPServer, str, str, Path]) -> None:
    _http, _https, plain, _certs = served

    def get(headers: dict[str, str]) -> tuple[str, str | None, bytes]:
        with urllib.request.urlopen(urllib.request.Request(plain + "/metrics", headers=headers), timeout=5) as resp:
            return resp.headers["Content-Type"], resp.headers["Content-Encoding"], resp.read()

    ctype, encoding, text = get({})
    assert ctype == "text/plain; version=0.0.4; charset=utf-8" and encoding is None
    assert b"# TYPE scheduler_schedule_attempts_total counter" in text and b"# EOF" not in text
    ctype, encoding, body = get({"Accept-Encoding": "gzip", "Accept": "application/openmetrics-text; version=1.0.0"})
    assert ctype.startswith("application/openmetrics-text; version=1.0.0") and encoding == "gzip"
    om = gzip.decompress(body)
    assert om.endswith(b"# EOF\n") and om.count(b"# EOF") == 1  # all registries as one exposition
    assert b"# TYPE scheduler_schedule_attempts counter" in om
    # What Prometheus sends: OpenMetrics preferred, gzip.
    prom = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
    ctype, encoding, _ = get({"Accept": prom, "Accept-Encoding": "gzip"})
    assert ctype.startswith("application/openmetrics-text") and encoding == "gzip"
