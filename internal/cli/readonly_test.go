//go:build unix

package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"earshot/store"
)

// A backup of a data dir this user cannot write says why it fails and what
// to do, not SQLite's "migrate: attempt to write a readonly database". (A
// backup that succeeds on a read-only dir needs a read-only store.Open.)
func TestBackupOfReadOnlyDataDir(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "data")
	if code, _, errs := runCLI(t, map[string]string{"EARSHOT_DATA": data}, "user", "create", "--email", "a@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatal(errs)
	}
	out := filepath.Join(base, "out")
	os.Mkdir(out, 0o777)
	os.Chmod(out, 0o777)
	cmd := exec.Command(os.Args[0], "backup", "--data", data, "--to", filepath.Join(out, "b.db"))
	cmd.Env = append(os.Environ(), "EARSHOT_TEST_AS_CLI=1")
	if os.Geteuid() == 0 {
		// Root writes anywhere: run the child as nobody, on a dir nobody
		// can read but not write.
		bin := filepath.Join(base, "earshot")
		copyFile(t, os.Args[0], bin)
		cmd.Path, cmd.Args[0] = bin, bin
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		for _, d := range []string{filepath.Dir(base), base} {
			os.Chmod(d, 0o755)
		}
		filepath.Walk(data, func(p string, _ os.FileInfo, _ error) error { return os.Chown(p, 65534, 65534) })
	}
	os.Chmod(filepath.Join(data, store.FileName), 0o444)
	os.Chmod(data, 0o555)
	t.Cleanup(func() { os.Chmod(data, 0o755) })
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("backup of a read-only data dir: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	if msg := stderr.String(); !strings.Contains(msg, "read-only") || !strings.Contains(msg, "writable") || strings.Contains(msg, "migrate:") {
		t.Errorf("stderr %q", msg)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
