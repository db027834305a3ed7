package deploy

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct{ op, args string }

func dockerfile(t *testing.T) []instruction {
	t.Helper()
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		op, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(op), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// Issue 23: the Dockerfile builds the static binary in a Go stage and runs
// it on distroless/static (CA certificates and zoneinfo included, no
// shell) as a non-root user, with /data as the volume, the port exposed, a
// HEALTHCHECK through `earshot healthcheck` and serve on every interface of
// the container.
func TestDockerfile(t *testing.T) {
	ins := dockerfile(t)
	var froms []string
	final := 0
	for i, in := range ins {
		if in.op == "FROM" {
			froms = append(froms, in.args)
			final = i
		}
	}
	if len(froms) < 2 || !strings.Contains(froms[0], "golang:") || !strings.HasSuffix(froms[0], " AS build") {
		t.Fatalf("not a multi-stage build from a golang builder: FROM %q", froms)
	}
	if base := froms[len(froms)-1]; !strings.HasPrefix(base, "gcr.io/distroless/static") {
		t.Errorf("final stage is %q, want gcr.io/distroless/static (CA certificates, zoneinfo, no shell)", base)
	}
	last := ins[final:]
	has := func(stage []instruction, op string, match func(string) bool) bool {
		return slices.ContainsFunc(stage, func(in instruction) bool { return in.op == op && match(in.args) })
	}
	build := ins[:final]
	if !has(build, "RUN", func(a string) bool {
		return strings.Contains(a, "CGO_ENABLED=0") && strings.Contains(a, "-trimpath") && strings.Contains(a, "-s -w") &&
			strings.Contains(a, "earshot/internal/cli.Version=") && strings.Contains(a, "earshot/internal/cli.Commit=")
	}) {
		t.Error("the build stage does not build static (CGO_ENABLED=0), stripped and stamped like scripts/release.sh")
	}
	for _, c := range []struct {
		op, what string
		match    func(string) bool
	}{
		{"COPY", "the binary as /earshot", func(a string) bool { return strings.HasPrefix(a, "--from=build") && strings.HasSuffix(a, " /earshot") }},
		{"USER", "a non-root user", func(a string) bool { u, _, _ := strings.Cut(a, ":"); return u != "" && u != "0" && u != "root" }},
		{"ENV", "EARSHOT_DATA=/data", func(a string) bool { return strings.Contains(a, "EARSHOT_DATA=/data") }},
		{"ENV", "EARSHOT_ADDR on every interface", func(a string) bool { return strings.Contains(a, "EARSHOT_ADDR=0.0.0.0:8080") }},
		{"VOLUME", "/data", func(a string) bool { return a == "/data" || a == `["/data"]` }},
		{"EXPOSE", "8080", func(a string) bool { return a == "8080" || a == "8080/tcp" }},
		{"HEALTHCHECK", `CMD ["/earshot", "healthcheck"]`, func(a string) bool { return strings.HasSuffix(a, `CMD ["/earshot", "healthcheck"]`) }},
		{"ENTRYPOINT", `["/earshot"]`, func(a string) bool { return a == `["/earshot"]` }},
		{"CMD", `["serve"]`, func(a string) bool { return a == `["serve"]` }},
	} {
		if !has(last, c.op, c.match) {
			t.Errorf("the final stage has no %s %s", c.op, c.what)
		}
	}
	ignore, err := os.ReadFile(".dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".git", "dist", "earshot-data"} {
		if !slices.Contains(strings.Fields(string(ignore)), want) {
			t.Errorf(".dockerignore does not leave out %s", want)
		}
	}
}

// Issue 23: compose.yaml parses; Earshot alone by default (image, the data
// volume at /data, the port, the healthcheck); the postgres profile adds
// PostgreSQL and an Earshot wired to it that waits for it to be healthy.
func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type service struct {
		Image       string            `yaml:"image"`
		Build       any               `yaml:"build"`
		Profiles    []string          `yaml:"profiles"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		Environment map[string]string `yaml:"environment"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
		DependsOn map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	}
	var doc struct {
		Services map[string]service `yaml:"services"`
		Volumes  map[string]any     `yaml:"volumes"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("compose.yaml does not parse: %v", err)
	}
	checkEarshot := func(name string) service {
		s, ok := doc.Services[name]
		if !ok {
			t.Fatalf("compose.yaml has no service %s", name)
		}
		if !strings.Contains(s.Image, "earshot") || s.Build == nil {
			t.Errorf("%s: image %q, build %v: want an earshot image built from the Dockerfile", name, s.Image, s.Build)
		}
		if !slices.ContainsFunc(s.Ports, func(p string) bool { return strings.HasSuffix(p, ":8080") }) {
			t.Errorf("%s publishes %v, not the container's 8080", name, s.Ports)
		}
		if !slices.Contains(s.Volumes, "earshot-data:/data") {
			t.Errorf("%s volumes %v lack earshot-data:/data", name, s.Volumes)
		}
		if !slices.Equal(s.Healthcheck.Test, []string{"CMD", "/earshot", "healthcheck"}) {
			t.Errorf("%s healthcheck %v", name, s.Healthcheck.Test)
		}
		return s
	}
	if s := checkEarshot("earshot"); len(s.Profiles) != 0 || s.Environment["EARSHOT_DATABASE_URL"] != "" {
		t.Errorf("earshot must start by default on SQLite: profiles %v, environment %v", s.Profiles, s.Environment)
	}
	pg := checkEarshot("earshot-postgres")
	if !slices.Equal(pg.Profiles, []string{"postgres"}) || !regexp.MustCompile(`^postgres://earshot:[^@]+@postgres:5432/earshot`).MatchString(pg.Environment["EARSHOT_DATABASE_URL"]) {
		t.Errorf("earshot-postgres: profiles %v, EARSHOT_DATABASE_URL %q", pg.Profiles, pg.Environment["EARSHOT_DATABASE_URL"])
	}
	if pg.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("earshot-postgres does not wait for a healthy postgres: %+v", pg.DependsOn)
	}
	db := doc.Services["postgres"]
	if !strings.HasPrefix(db.Image, "postgres:") || !slices.Equal(db.Profiles, []string{"postgres"}) || len(db.Healthcheck.Test) == 0 ||
		!slices.ContainsFunc(db.Volumes, func(v string) bool { return strings.HasPrefix(v, "earshot-postgres:") }) || len(db.Ports) != 0 {
		t.Errorf("postgres service: %+v", db)
	}
	for _, v := range []string{"earshot-data", "earshot-postgres"} {
		if _, ok := doc.Volumes[v]; !ok {
			t.Errorf("no named volume %s", v)
		}
	}
}

// unitDirectives reads a systemd unit's Key=Value lines (a key may repeat).
func unitDirectives(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: line %q is not Key=Value", path, line)
		}
		d[k] = append(d[k], v)
	}
	return d
}

// Issue 23: the systemd unit is hardened (its own user, a state directory,
// a read-only system, no new privileges, an optional environment file) and
// systemd-analyze verify accepts it; its offline security exposure stays
// in systemd's "OK" band.
func TestSystemdUnit(t *testing.T) {
	const unit = "deploy/earshot.service"
	d := unitDirectives(t, unit)
	for k, want := range map[string]string{
		"User": "earshot", "StateDirectory": "earshot", "ProtectSystem": "strict", "NoNewPrivileges": "yes",
		"PrivateTmp": "yes", "ProtectHome": "yes", "EnvironmentFile": "-/etc/earshot/earshot.env", "Restart": "on-failure",
		"ExecStart": "/usr/local/bin/earshot serve", "CapabilityBoundingSet": "", "WantedBy": "multi-user.target",
	} {
		if !slices.Contains(d[k], want) {
			t.Errorf("%s: %s=%v, want %q", unit, k, d[k], want)
		}
	}
	if !slices.Contains(d["Environment"], "EARSHOT_DATA=/var/lib/earshot") {
		t.Errorf("%s: the data dir is not the state directory: Environment=%v", unit, d["Environment"])
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian package systemd; scripts/test-all.sh installs it)")
	}
	// verify insists that ExecStart's program exists: the unit names the
	// install path, so a copy naming an existing executable is verified.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(unit)
	dir := t.TempDir()
	copyPath := filepath.Join(dir, "earshot.service")
	if err := os.WriteFile(copyPath, []byte(strings.ReplaceAll(string(b), "/usr/local/bin/earshot", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", copyPath).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(analyze, "security", "--offline=yes", copyPath).CombinedOutput()
	if err != nil && strings.Contains(string(out), "offline") {
		t.Skipf("this systemd-analyze has no offline security check: %s", out)
	}
	m := regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	if x, _ := strconv.ParseFloat(string(m[1]), 64); x > 2.0 {
		t.Errorf("exposure %.1f, want at most 2.0 (systemd's OK band):\n%s", x, out)
	} else {
		t.Logf("systemd-analyze security --offline: exposure %.1f", x)
	}
}

// Issue 23: LICENSE is the Apache License 2.0, byte for byte the text the
// Apache Software Foundation publishes (its SHA-256 is well known), and
// the OpenAPI document says so (server's own test checks info.license).
func TestLicense(t *testing.T) {
	b, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30" {
		t.Errorf("LICENSE is not the Apache License 2.0 text of https://www.apache.org/licenses/LICENSE-2.0.txt")
	}
	src, err := os.ReadFile("server/openapi.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `"license": map[string]any{"name": "Apache-2.0", "identifier": "Apache-2.0"}`) {
		t.Error("server/openapi.go's info.license is not Apache-2.0")
	}
}
