"""The app's options: read `/data/options.json`, check every value, return frozen `Settings`.

The Supervisor writes `options.json` from the options the user saved in the app's
Configuration tab (`addon/config.yaml` declares them). Its own schema check is coarse, so
everything is checked again here, and every problem is reported as one line naming the
option, e.g. `options.json: thinking_budget: must be between 0 and 8192, got 9000`.
A handwritten `options.json` (development, `docker run`) may leave options out; they take
the defaults below, which are the same as `config.yaml`'s (a test keeps them equal).

Secrets are `Secret` values: their repr and str are `***`, so a logged `Settings` never
shows a password.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
import json
from pathlib import Path, PurePosixPath
import re
from typing import Any, Final
from urllib.parse import urlsplit

from botpsy_agent.contract import INSTANCE_PATTERN
from botpsy_agent.llm import key_safe_over
from botpsy_agent.mqtt import INSTANCE_RULE
from botpsy_agent.weights import ModelChoice, ModelSettings, model_file_name

DEFAULT_OPTIONS_PATH: Final = Path("/data/options.json")
DEFAULT_CONFIG_DIR: Final = Path("/config")
"""The app config folder (`app_config` map): models, the policy file."""
DEFAULT_DATA_DIR: Final = Path("/data")
CONFIG_DIR_ENV: Final = "BOTPSY_CONFIG_DIR"
DATA_DIR_ENV: Final = "BOTPSY_DATA_DIR"
"""Move the two folders elsewhere (development, the demo, tests)."""

LANGUAGE_PATTERN: Final = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?")
SHA256_PATTERN: Final = re.compile(r"[0-9a-fA-F]{64}")
HOST_PATTERN: Final = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.:_-]{0,252}[A-Za-z0-9])?")
READABLE_ROOTS: Final = ("/config", "/share", "/data", "/media")
"""Where an absolute path in the options may point (the folders the app can see)."""

DEFAULT_OPTIONS: Final[Mapping[str, Any]] = {
    "model": "Q8_0",
    "threads": "auto",
    "context_length": 0,
    "thinking_budget": 0,
    "snapshot_disk_mb": 256,
    "languages": ["en", "ko", "id"],
    "policy_file": "policy.yaml",
    "instance": "home",
    "log_level": "info",
    "audit_message_bodies": False,
    "offline": False,
    "rate_limits": {"per_principal": 20, "global": 60},
    "mqtt": {},
    "model_server": {},
}
"""The defaults, equal to `options:` in `addon/config.yaml`."""

OPTIONAL_OPTIONS: Final = frozenset(
    {"custom_model", "custom_model_sha256", "model_mirror", "pairing_by_code"}
)
"""Options that have no default: absent means not set (`?` in the config.yaml schema)."""


class LogLevel(StrEnum):
    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class Secret:
    """A secret string: shown as `***` everywhere; `reveal()` gives the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    def __str__(self) -> str:
        return "***"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))


@dataclass(frozen=True)
class MqttOverride:
    """Broker options the user set; unset fields come from the Supervisor's MQTT service."""

    host: str | None = None
    port: int | None = None
    username: str | None = None
    password: Secret | None = None
    tls: bool | None = None
    ca_file: Path | None = None

    @property
    def replaces_service(self) -> bool:
        """A host means another broker: the Supervisor's service is not asked at all."""
        return self.host is not None


@dataclass(frozen=True)
class MqttSettings:
    """The broker the app connects to, resolved from the override and the Supervisor."""

    host: str
    port: int
    username: str | None
    password: Secret | None
    tls: bool
    ca_file: Path | None
    protocol: str
    """MQTT protocol version the Supervisor announced ("3.1.1" or "3.1"); "5" for a broker
    of the options."""
    source: str
    """`options`, `supervisor` or `supervisor+options` (service broker, own credentials)."""


@dataclass(frozen=True)
class ModelServerOption:
    """A `llama-server` on another machine of the house that serves the model while it is
    healthy (the local model, if any, stands in while it is not)."""

    url: str
    api_key: Secret | None
    timeout_s: int
    ca_file: Path | None


@dataclass(frozen=True)
class RateLimits:
    """Requests per minute, per principal and for the whole app."""

    per_principal: int
    global_: int


@dataclass(frozen=True)
class Settings:
    """Everything the app's options decide, checked."""

    model: ModelSettings
    mqtt: MqttOverride
    rate_limits: RateLimits
    instance: str
    """Topic segment: `botpsy/<instance>/…`."""
    languages: tuple[str, ...]
    """The first one is the default."""
    policy_file: Path
    log_level: LogLevel
    audit_message_bodies: bool
    """Store request and answer texts in the audit log (off: only who, what, outcome)."""
    config_dir: Path
    data_dir: Path
    notes: tuple[str, ...] = field(default=())
    """Options that were set but have no effect (e.g. a custom URL with a published model)."""
    model_server: ModelServerOption | None = None
    """None: no model server (the default)."""
    pairing_by_code: bool | None = None
    """Whether an admin's config flow may pair by code; None (unset): off under the
    Supervisor, on elsewhere (`startup.pairing_by_code`)."""

    @property
    def models_dir(self) -> Path:
        return self.config_dir / "models"


class OptionsError(ValueError):
    """The options are invalid; `problems` holds one line per finding."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class _Invalid(Exception):
    """One option's value is wrong; the message says why."""


def load_settings(
    path: Path = DEFAULT_OPTIONS_PATH,
    *,
    config_dir: Path = DEFAULT_CONFIG_DIR,
    data_dir: Path = DEFAULT_DATA_DIR,
) -> Settings:
    """Read and check an `options.json`, or raise `OptionsError`."""
    source = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise OptionsError([f"{source}: cannot read {path}: {err.strerror}"]) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise OptionsError(
            [f"{source}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"]
        ) from None
    return parse_options(raw, source=source, config_dir=config_dir, data_dir=data_dir)


def load_app_settings(path: Path, environ: Mapping[str, str]) -> Settings:
    """`load_settings` with the folders `environ` names, else the app's `/config`, `/data`."""
    return load_settings(
        path,
        config_dir=Path(environ.get(CONFIG_DIR_ENV, DEFAULT_CONFIG_DIR)),
        data_dir=data_dir_from(environ),
    )


def data_dir_from(environ: Mapping[str, str]) -> Path:
    return Path(environ.get(DATA_DIR_ENV, DEFAULT_DATA_DIR))


def parse_options(
    raw: object,
    *,
    source: str = "options.json",
    config_dir: Path = DEFAULT_CONFIG_DIR,
    data_dir: Path = DEFAULT_DATA_DIR,
) -> Settings:
    """Check decoded options; every problem is collected before `OptionsError` is raised."""
    if not isinstance(raw, dict):
        raise OptionsError([f"{source}: must be a JSON object, got {_kind(raw)}"])
    reader = _Reader(raw, source)
    settings = reader.settings(config_dir, data_dir)
    if reader.problems:
        raise OptionsError(reader.problems)
    assert settings is not None
    return settings


class _Reader:
    """Reads options one by one, collecting a line per problem."""

    def __init__(self, raw: dict[str, Any], source: str) -> None:
        self.raw = raw
        self.source = source
        self.problems: list[str] = []
        self.notes: list[str] = []

    def problem(self, name: str, message: str) -> None:
        self.problems.append(f"{self.source}: {name}: {message}")

    def get[T](self, name: str, check: Callable[[object], T], section: str | None = None) -> T:
        """The checked value of `name`, its default when absent (or after a problem)."""
        defaults = DEFAULT_OPTIONS if section is None else DEFAULT_OPTIONS[section]
        default = defaults[name]
        value = self._container(section).get(name, default)
        try:
            return check(value)
        except _Invalid as err:
            self.problem(name if section is None else f"{section}.{name}", str(err))
            return check(default)  # the defaults are valid by construction

    def optional[T](
        self, name: str, check: Callable[[object], T], section: str | None = None
    ) -> T | None:
        """The checked value of an option without a default; None when not set."""
        value = self._container(section).get(name)
        if value is None:
            return None
        try:
            return check(value)
        except _Invalid as err:
            self.problem(name if section is None else f"{section}.{name}", str(err))
            return None

    def _container(self, section: str | None) -> dict[str, Any]:
        if section is None:
            return self.raw
        return self._section(section)

    def _section(self, name: str) -> dict[str, Any]:
        value = self.raw.get(name, DEFAULT_OPTIONS[name])
        return value if isinstance(value, dict) else {}

    def unknown_keys(self) -> None:
        known = set(DEFAULT_OPTIONS) | OPTIONAL_OPTIONS
        for key in sorted(set(self.raw) - known):
            self.problem(key, "unknown option (check the spelling)")
        for section in ("rate_limits", "mqtt", "model_server"):
            value = self.raw.get(section, {})
            if not isinstance(value, dict):
                self.problem(section, f"must be a group of options, got {_kind(value)}")
                continue
            allowed = SECTION_FIELDS.get(section) or set(DEFAULT_OPTIONS[section])
            for key in sorted(set(value) - allowed):
                self.problem(f"{section}.{key}", "unknown option (check the spelling)")

    def settings(self, config_dir: Path, data_dir: Path) -> Settings | None:
        self.unknown_keys()
        model = self.model_settings()
        mqtt = self.mqtt_override()
        rate_limits = self.rate_limits()
        model_server = self.model_server()
        instance = self.get("instance", _matching(INSTANCE_PATTERN, INSTANCE_RULE))
        languages = self.get("languages", _languages)
        policy_file = self.get("policy_file", _policy_path(config_dir))
        log_level = self.get("log_level", _choice(LogLevel))
        audit_bodies = self.get("audit_message_bodies", _bool)
        by_code = self.optional("pairing_by_code", _bool)
        if self.problems:
            return None
        return Settings(
            model=model,
            mqtt=mqtt,
            rate_limits=rate_limits,
            instance=instance,
            languages=languages,
            policy_file=policy_file,
            log_level=log_level,
            audit_message_bodies=audit_bodies,
            config_dir=config_dir,
            data_dir=data_dir,
            notes=tuple(self.notes),
            model_server=model_server,
            pairing_by_code=by_code,
        )

    def model_settings(self) -> ModelSettings:
        choice = self.get("model", _choice(ModelChoice))
        custom = self.optional("custom_model", _custom_source)
        sha256 = self.optional("custom_model_sha256", _sha256)
        if choice is ModelChoice.CUSTOM and self.raw.get("custom_model") is None:
            self.problem("custom_model", "required when model is custom (a URL or a path)")
        if choice is not ModelChoice.CUSTOM:
            for name, value in (("custom_model", custom), ("custom_model_sha256", sha256)):
                if value is not None:
                    self.notes.append(f"{name} is set but not used: model is {choice}")
            custom, sha256 = None, None
        return ModelSettings(
            choice=choice,
            custom_source=custom,
            sha256=sha256,
            mirror=self.optional("model_mirror", _https_url),
            offline=self.get("offline", _bool),
            threads=self.get("threads", _threads),
            context_length=self.get("context_length", _context_length),
            thinking_budget=self.get("thinking_budget", _int_between(0, 8192)),
            snapshot_disk_mb=self.get("snapshot_disk_mb", _int_between(0, 4096)),
        )

    def mqtt_override(self) -> MqttOverride:
        def get[T](name: str, check: Callable[[object], T]) -> T | None:
            return self.optional(name, check, section="mqtt")

        override = MqttOverride(
            host=get("host", _host),
            port=get("port", _int_between(1, 65535)),
            username=get("username", _non_empty_str),
            password=get("password", _secret),
            tls=get("tls", _bool),
            ca_file=get("ca_file", _readable_path),
        )
        if override.password is not None and override.username is None:
            self.problem("mqtt.password", "needs mqtt.username too")
        if override.ca_file is not None and override.tls is not True:
            self.problem("mqtt.ca_file", "only used with TLS: set mqtt.tls to true")
        if not override.replaces_service:
            for name in ("port", "tls", "ca_file"):
                if getattr(override, name) is not None:
                    self.problem(
                        f"mqtt.{name}",
                        "only used with mqtt.host (another broker); set the host too",
                    )
        return override

    def model_server(self) -> ModelServerOption | None:
        def get[T](name: str, check: Callable[[object], T]) -> T | None:
            return self.optional(name, check, section="model_server")

        url = get("url", _server_url)
        api_key = get("api_key", _secret)
        timeout_s = get("timeout_s", _int_between(1, 600))
        ca_file = get("ca_file", _readable_path)
        if url is None:
            for name, value in (
                ("api_key", api_key),
                ("timeout_s", timeout_s),
                ("ca_file", ca_file),
            ):
                if value is not None:
                    self.problem(f"model_server.{name}", "only used with model_server.url")
            return None
        if ca_file is not None and not url.startswith("https://"):
            self.problem("model_server.ca_file", "only used with an https:// url")
        if api_key is not None and not key_safe_over(url):
            self.problem(
                "model_server.api_key",
                "would be sent in clear over http://; use an https:// url (with ca_file for "
                "a private certificate authority), or http:// only to this machine (127.0.0.1)",
            )
        return ModelServerOption(
            url=url,
            api_key=api_key,
            timeout_s=timeout_s or MODEL_SERVER_TIMEOUT_S,
            ca_file=ca_file,
        )

    def rate_limits(self) -> RateLimits:
        per_principal = self.get("per_principal", _int_between(1, 600), section="rate_limits")
        global_ = self.get("global", _int_between(1, 6000), section="rate_limits")
        if per_principal > global_:
            self.problem(
                "rate_limits.per_principal",
                f"must not exceed rate_limits.global ({global_}), got {per_principal}",
            )
        return RateLimits(per_principal=per_principal, global_=global_)


MQTT_FIELDS: Final = frozenset({"host", "port", "username", "password", "tls", "ca_file"})
MODEL_SERVER_FIELDS: Final = frozenset({"url", "api_key", "timeout_s", "ca_file"})
SECTION_FIELDS: Final = {"mqtt": MQTT_FIELDS, "model_server": MODEL_SERVER_FIELDS}
MODEL_SERVER_TIMEOUT_S: Final = 20


# --- value checks: each returns the value or raises _Invalid(message) ----------------------


def _kind(value: object) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a group of options"
    return repr(value)


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"must be true or false, got {_kind(value)}")
    return value


def _int_between(low: int, high: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Invalid(f"must be a whole number between {low} and {high}, got {_kind(value)}")
        if not low <= value <= high:
            raise _Invalid(f"must be between {low} and {high}, got {value}")
        return value

    return check


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"must be text, got {_kind(value)}")
    return value


def _non_empty_str(value: object) -> str:
    text = _str(value).strip()
    if not text:
        raise _Invalid("must not be empty (leave it out instead)")
    return text


def _choice[E: StrEnum](enum: type[E]) -> Callable[[object], E]:
    def check(value: object) -> E:
        for member in enum:
            if member.value == value:
                return member
        names = ", ".join(member.value for member in enum)
        raise _Invalid(f"must be one of {names}, got {_kind(value)}")

    return check


def _matching(pattern: re.Pattern[str], rule: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        text = _str(value)
        if not pattern.fullmatch(text):
            raise _Invalid(f"must be {rule}, got {text!r}")
        return text

    return check


def _threads(value: object) -> int | None:
    if value == "auto":
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 64:
        raise _Invalid(f"must be auto or a number of threads from 1 to 64, got {_kind(value)}")
    return value


def _context_length(value: object) -> int:
    """0 (automatic: sized from the prompt, `llm/context.py`) or a number of tokens."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Invalid(
            f"must be a whole number: 0 (automatic) or between 512 and 131072, got {_kind(value)}"
        )
    if value != 0 and not 512 <= value <= 131072:
        raise _Invalid(f"must be 0 (automatic) or between 512 and 131072, got {value}")
    return value


def _languages(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise _Invalid(f"must be a list of at least one language code, got {_kind(value)}")
    codes: list[str] = []
    for item in value:
        if not isinstance(item, str) or not LANGUAGE_PATTERN.fullmatch(item):
            raise _Invalid(f"{_kind(item)} is not a language code like en, ko or pt-BR")
        if item in codes:
            raise _Invalid(f"{item} is listed twice")
        codes.append(item)
    return tuple(codes)


def _sha256(value: object) -> str:
    text = _str(value).strip()
    if not SHA256_PATTERN.fullmatch(text):
        raise _Invalid(f"must be 64 hexadecimal characters, got {len(text)} characters")
    return text.lower()


def _https_url(value: object) -> str:
    """Model sources are fetched over https only: on plain http anyone on the way could hand
    over another file (issue 18, finding 8)."""
    text = _str(value).strip()
    parts = urlsplit(text)
    if parts.scheme != "https" or not parts.netloc:
        raise _Invalid(f"must be an https:// address, got {text!r}")
    return text


def _server_url(value: object) -> str:
    """A model server may be plain http on the home network: what it answers is untrusted
    model output either way (held to its grammar, validated, authorised, grounded); an API
    key needs https unless the server is on this machine (`key_safe_over`)."""
    text = _str(value).strip()
    parts = urlsplit(text)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise _Invalid(f"must be an http:// or https:// address, got {text!r}")
    return text


def _is_under(path: PurePosixPath, roots: tuple[str, ...]) -> bool:
    return any(path == PurePosixPath(root) or PurePosixPath(root) in path.parents for root in roots)


def _absolute_path(text: str) -> PurePosixPath:
    path = PurePosixPath(text)
    if not path.is_absolute() or ".." in path.parts:
        raise _Invalid(f"must be an absolute path without '..', got {text!r}")
    if not _is_under(path, READABLE_ROOTS):
        raise _Invalid(f"must be inside {', '.join(READABLE_ROOTS)}, got {text!r}")
    return path


def _readable_path(value: object) -> Path:
    return Path(_absolute_path(_non_empty_str(value)))


def _custom_source(value: object) -> str:
    text = _non_empty_str(value)
    if "://" in text:
        url = _https_url(text)
        try:
            model_file_name(url)
        except ValueError as err:
            raise _Invalid(f"{err}, got {text!r}") from None
        return url
    name = _absolute_path(text).name
    if not name.endswith(".gguf"):
        raise _Invalid(f"must name a .gguf file, got {text!r}")
    return text


def _policy_path(config_dir: Path) -> Callable[[object], Path]:
    def check(value: object) -> Path:
        text = _non_empty_str(value)
        path = PurePosixPath(text)
        if not path.is_absolute():
            if ".." in path.parts:
                raise _Invalid(f"must stay inside the app config folder, got {text!r}")
            resolved = config_dir / path
        else:
            resolved = Path(_absolute_path(text))
        if resolved.suffix not in {".yaml", ".yml"}:
            raise _Invalid(f"must be a .yaml file, got {text!r}")
        return resolved

    return check


def _host(value: object) -> str:
    text = _non_empty_str(value)
    looks_like_host_and_port = text.count(":") == 1
    if not HOST_PATTERN.fullmatch(text) or looks_like_host_and_port:
        raise _Invalid(f"must be a host name or IP address (no scheme or port), got {text!r}")
    return text


def _secret(value: object) -> Secret:
    if not isinstance(value, str):
        raise _Invalid("must be text")  # the value itself is never repeated: it is a secret
    if not value:
        raise _Invalid("must not be empty (leave it out instead)")
    return Secret(value)
