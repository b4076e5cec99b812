#!/usr/bin/env python3
"""Attach an SBOM and a build-provenance statement to an image in an OCI registry, and verify them.

scripts/release-smoke uses it to rehearse, offline, what the release workflow does on GitHub: there,
BuildKit attaches the SBOM and SLSA provenance, cosign signs keyless and actions/attest-build-provenance
pushes a signed attestation; none of them can run without the internet. Here the same kinds of
documents are made from the pulled image itself and pushed as OCI artifacts that refer to it, both
ways a client looks for them: cosign's tags (`sha256-<hex>.sbom`, `sha256-<hex>.att`) and an OCI 1.1
`subject` field, with the referrers tag schema's index at `sha256-<hex>` for registries without the
referrers API (Debian's docker-registry 2.8 has none). Verifying fetches everything back by digest.

Standard library only (a fresh CI machine runs it before anything is installed).

    oci_attach.py resolve    REGISTRY REPOSITORY REFERENCE            -> {"digest", "mediaType", "size"}
    oci_attach.py sbom       IMAGE DIGEST PIP_INSPECT_JSON [DPKG_TSV]  -> CycloneDX 1.5 JSON on stdout
    oci_attach.py provenance IMAGE DIGEST PARAMETERS_JSON              -> in-toto statement on stdout
    oci_attach.py attach     REGISTRY REPOSITORY DIGEST sbom|att FILE
    oci_attach.py verify     REGISTRY REPOSITORY DIGEST NAME=VERSION...
    oci_attach.py new-layers REGISTRY REPOSITORY OLD NEW               -> what NEW adds over OLD
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
MANIFEST_TYPES = ", ".join([OCI_MANIFEST, OCI_INDEX, "application/vnd.docker.distribution.manifest.v2+json",
                            "application/vnd.docker.distribution.manifest.list.v2+json"])
# The OCI 1.1 empty config: artifacts carry no image config.
EMPTY_CONFIG = {"mediaType": "application/vnd.oci.empty.v1+json", "size": 2,
                "digest": "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"}
# What each kind is: its media type, and the tag suffix cosign uses for it.
KINDS = {"sbom": ("application/vnd.cyclonedx+json", "sbom"), "att": ("application/vnd.in-toto+json", "att")}


class VerifyError(Exception):
    """A check on what the registry holds failed (exit 1, with the reason)."""


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def cosign_tag(digest: str, suffix: str = "") -> str:
    """`sha256:<hex>` -> `sha256-<hex>[.suffix]`: cosign's tags, and (without suffix) the referrers tag schema's."""
    if not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
        raise ValueError(f"not a sha256 digest: {digest!r}")
    return digest.replace(":", "-", 1) + (f".{suffix}" if suffix else "")


def purl_pypi(name: str, version: str) -> str:
    """The package URL of a PyPI distribution (name normalised as PEP 503 says; `+` is escaped)."""
    normal = re.sub(r"[-_.]+", "-", name).lower()
    return f"pkg:pypi/{normal}@{urllib.parse.quote(version, safe='')}"


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def cyclonedx(image: str, digest: str, pip_inspect: dict, dpkg: Sequence[tuple[str, ...]] = ()) -> dict:
    """A CycloneDX 1.5 SBOM of the image: its Python packages (`pip inspect`'s shape: scripts/release-smoke
    reads them with importlib.metadata inside the image, which has no pip) and, where
    given, its Debian packages (`dpkg-query` run inside it). The image is the BOM's subject, by digest."""
    components = []
    for item in pip_inspect["installed"]:
        meta = item["metadata"]
        purl = purl_pypi(meta["name"], meta["version"])
        component = {"type": "library", "bom-ref": purl, "name": meta["name"], "version": meta["version"],
                     "purl": purl}
        if meta.get("license_expression") or meta.get("license"):
            license_ = meta.get("license_expression") or meta["license"]
            component["licenses"] = [{"license": {"name": license_.splitlines()[0][:200]}}]
        components.append(component)
    for package, version, arch in dpkg:
        purl = f"pkg:deb/debian/{package}@{urllib.parse.quote(version, safe='')}?arch={arch}"
        components.append({"type": "library", "bom-ref": purl, "name": package, "version": version, "purl": purl})
    name = image.rsplit("/", 1)[-1].split(":")[0]
    return {
        "bomFormat": "CycloneDX", "specVersion": "1.5", "serialNumber": f"urn:uuid:{uuid.uuid4()}", "version": 1,
        "metadata": {
            "timestamp": now(),
            "tools": {"components": [{"type": "application", "name": "scripts/oci_attach.py"}]},
            "component": {"type": "container", "bom-ref": f"{image}@{digest}", "name": name,
                          "purl": f"pkg:oci/{name}@{urllib.parse.quote(digest, safe='')}"},
        },
        "components": sorted(components, key=lambda c: c["bom-ref"]),
    }


def provenance(image: str, digest: str, parameters: dict) -> dict:
    """An in-toto statement with a SLSA v1 provenance predicate whose subject is the image's digest."""
    return {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": image, "digest": {"sha256": digest.removeprefix("sha256:")}}],
        "predicateType": "https://slsa.dev/provenance/v1",
        "predicate": {
            "buildDefinition": {
                "buildType": "https://github.com/llm-quality-gate/llm-quality-gate/scripts/release-smoke@v1",
                "externalParameters": parameters.get("external", {}),
                "internalParameters": parameters.get("internal", {}),
                "resolvedDependencies": parameters.get("dependencies", []),
            },
            "runDetails": {"builder": {"id": parameters.get("builder", "local:scripts/release-smoke")},
                           "metadata": {"invocationId": str(uuid.uuid4()), "finishedOn": now()}},
        },
    }


def artifact_manifest(subject: dict, media_type: str, blob: bytes, annotations: dict) -> bytes:
    """An OCI 1.1 artifact manifest: the empty config, one layer (the document), `subject` the image."""
    return json.dumps({
        "schemaVersion": 2, "mediaType": OCI_MANIFEST, "artifactType": media_type,
        "config": EMPTY_CONFIG,
        "layers": [{"mediaType": media_type, "size": len(blob), "digest": sha256(blob)}],
        "subject": {"mediaType": subject["mediaType"], "size": subject["size"], "digest": subject["digest"]},
        "annotations": annotations,
    }, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Registry:
    """The few calls of the OCI distribution API this needs, over plain HTTP (a loopback registry)."""

    base: str
    repository: str

    def _request(self, method: str, path: str, data: bytes | None = None,
                 headers: dict | None = None) -> tuple[int, dict, bytes]:
        url = path if path.startswith("http") else f"{self.base.rstrip('/')}/v2/{self.repository}/{path}"
        request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def manifest(self, reference: str) -> tuple[dict, bytes]:
        status, headers, body = self._request("GET", f"manifests/{reference}", headers={"Accept": MANIFEST_TYPES})
        if status != 200:
            raise VerifyError(f"{self.repository}:{reference}: HTTP {status} {body[:200]!r}")
        if reference.startswith("sha256:") and sha256(body) != reference:
            raise VerifyError(f"manifest {reference} came back with digest {sha256(body)}")
        return {"digest": sha256(body), "mediaType": headers.get("Content-Type", ""), "size": len(body)}, body

    def blob(self, digest: str) -> bytes:
        status, _, body = self._request("GET", f"blobs/{digest}")
        if status != 200 or sha256(body) != digest:
            raise VerifyError(f"blob {digest}: HTTP {status}, content digest {sha256(body)}")
        return body

    def put_blob(self, data: bytes) -> None:
        digest = sha256(data)
        if self._request("HEAD", f"blobs/{digest}")[0] == 200:
            return
        status, headers, body = self._request("POST", "blobs/uploads/")
        if status != 202:
            raise VerifyError(f"starting an upload: HTTP {status} {body[:200]!r}")
        location = urllib.parse.urljoin(self.base, headers["Location"])
        location += ("&" if "?" in location else "?") + urllib.parse.urlencode({"digest": digest})
        status, _, body = self._request("PUT", location, data,
                                        {"Content-Type": "application/octet-stream"})
        if status != 201:
            raise VerifyError(f"uploading {digest}: HTTP {status} {body[:200]!r}")

    def put_manifest(self, reference: str, body: bytes, media_type: str) -> None:
        status, _, reply = self._request("PUT", f"manifests/{reference}", body, {"Content-Type": media_type})
        if status != 201:
            raise VerifyError(f"pushing manifest {reference}: HTTP {status} {reply[:300]!r}")

    def referrers(self, digest: str) -> tuple[str, list[dict]]:
        """The artifacts that refer to `digest`: the referrers API where the registry has it, else the
        referrers tag schema's index (empty when there is none yet)."""
        status, _, body = self._request("GET", f"referrers/{digest}", headers={"Accept": OCI_INDEX})
        if status == 200:
            return "referrers API", json.loads(body).get("manifests", [])
        try:
            return "tag schema", json.loads(self.manifest(cosign_tag(digest))[1]).get("manifests", [])
        except VerifyError:
            return "tag schema", []


def attach(registry: Registry, digest: str, kind: str, document: bytes) -> str:
    """Push `document` as an artifact referring to the image `digest`; returns the artifact's digest."""
    media_type, suffix = KINDS[kind]
    subject, _ = registry.manifest(digest)
    registry.put_blob(b"{}")
    registry.put_blob(document)
    body = artifact_manifest(subject, media_type, document, {"org.opencontainers.image.created": now()})
    registry.put_manifest(cosign_tag(digest, suffix), body, OCI_MANIFEST)
    # The fallback index (OCI 1.1 referrers tag schema): every referrer, this one replacing its kind's.
    _, known = registry.referrers(digest)
    entry = {"mediaType": OCI_MANIFEST, "digest": sha256(body), "size": len(body), "artifactType": media_type}
    index = {"schemaVersion": 2, "mediaType": OCI_INDEX,
             "manifests": [m for m in known if m.get("artifactType") != media_type] + [entry]}
    registry.put_manifest(cosign_tag(digest), json.dumps(index).encode(), OCI_INDEX)
    return sha256(body)


def fetch_artifact(registry: Registry, digest: str, kind: str) -> dict:
    """The document of `kind` attached to `digest`, found by cosign's tag, checked against its `subject`,
    the referrers index and every digest on the way."""
    media_type, suffix = KINDS[kind]
    found, body = registry.manifest(cosign_tag(digest, suffix))
    manifest = json.loads(body)
    if manifest.get("subject", {}).get("digest") != digest:
        raise VerifyError(f"{kind}: subject is {manifest.get('subject')}, not the image {digest}")
    how, referrers = registry.referrers(digest)
    if not any(r["digest"] == found["digest"] and r.get("artifactType") == media_type for r in referrers):
        raise VerifyError(f"{kind}: {found['digest']} is not among the image's referrers ({how})")
    layer = manifest["layers"][0]
    if layer["mediaType"] != media_type:
        raise VerifyError(f"{kind}: layer media type {layer['mediaType']}, expected {media_type}")
    return json.loads(registry.blob(layer["digest"]))


def verify(registry: Registry, digest: str, expected: dict[str, str]) -> list[str]:
    """Check the SBOM and the provenance attached to `digest`; returns what was checked, one line each."""
    registry.manifest(digest)  # the image is there, and its bytes hash to the digest
    sbom = fetch_artifact(registry, digest, "sbom")
    subject = sbom["metadata"]["component"]["bom-ref"]
    if not subject.endswith(f"@{digest}"):
        raise VerifyError(f"sbom: describes {subject}, not {digest}")
    versions = {c["purl"].split("@")[0]: c["version"] for c in sbom["components"]}
    lines = [f"sbom: CycloneDX {sbom['specVersion']}, {len(sbom['components'])} components, subject {digest}"]
    for name, version in expected.items():
        found = versions.get(purl_pypi(name, "0").split("@")[0])
        if found != version:
            raise VerifyError(f"sbom: {name} is {found or 'missing'}, expected {version}")
        lines.append(f"sbom: {name} {found}")
    statement = fetch_artifact(registry, digest, "att")
    subjects = [s["digest"].get("sha256") for s in statement.get("subject", [])]
    if statement.get("predicateType") != "https://slsa.dev/provenance/v1" or subjects != [digest[7:]]:
        raise VerifyError(f"att: predicate {statement.get('predicateType')}, subjects {subjects}")
    lines.append(f"att: in-toto SLSA v1 provenance, subject {digest}")
    return lines


def new_layers(registry: Registry, old: str, new: str) -> list[dict]:
    """The layers of image `new` that image `old` lacks (what a push or pull of `new` transfers)."""
    had = {layer["digest"] for layer in json.loads(registry.manifest(old)[1])["layers"]}
    return [layer for layer in json.loads(registry.manifest(new)[1])["layers"] if layer["digest"] not in had]


def main(argv: list[str]) -> int:
    command, *args = argv or ["--help"]
    try:
        if command == "resolve":
            print(json.dumps(Registry(args[0], args[1]).manifest(args[2])[0]))
        elif command == "sbom":
            with open(args[2]) as handle:
                inspect = json.load(handle)
            dpkg = []
            if len(args) > 3:
                with open(args[3]) as handle:
                    dpkg = [tuple(line.split("\t")) for line in handle.read().splitlines() if line.count("\t") == 2]
            print(json.dumps(cyclonedx(args[0], args[1], inspect, dpkg), indent=1))
        elif command == "provenance":
            with open(args[2]) as handle:
                print(json.dumps(provenance(args[0], args[1], json.load(handle)), indent=1))
        elif command == "attach":
            with open(args[4], "rb") as handle:
                print(attach(Registry(args[0], args[1]), args[2], args[3], handle.read()))
        elif command == "verify":
            expected = dict(arg.split("=", 1) for arg in args[3:])
            print("\n".join(verify(Registry(args[0], args[1]), args[2], expected)))
        elif command == "new-layers":
            layers = new_layers(Registry(args[0], args[1]), args[2], args[3])
            print(f"{len(layers)} layer(s), {sum(layer['size'] for layer in layers) / 1e6:.1f} MB compressed")
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except VerifyError as error:
        print(f"FAIL: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
