package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestHelpTouchesNoDatabase(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"serve", "--help"}, {"import", "--help"}, {"migrate", "--help"},
		{"generate", "--help"}, {"account", "--help"}, {"account", "-h"}, {"account", "create", "--help"},
		{"account", "show", "--help"}, {"key", "--help"}, {"key", "create", "--help"}, {"key", "revoke", "-h"},
	} {
		t.Run(strings.Join(args, " ")+" prints usage, exits 0 and creates no file", func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "AFFTRACK_DB=")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("exit: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "Usage") {
				t.Errorf("no usage on standard output:\n%s", out)
			}
			if files, _ := os.ReadDir(dir); len(files) > 0 {
				t.Errorf("created %v", files)
			}
		})
	}
	t.Run("import --help explains FILE and points to docs/import.md", func(t *testing.T) {
		out, err := afftrack(t, nil, "import", "--help")
		if err != nil || !strings.Contains(out, "FILE, a JSON import file") || !strings.Contains(out, "docs/import.md") {
			t.Errorf("%v\n%s", err, out)
		}
	})
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		out, err := afftrack(t, nil, arg)
		if err != nil || !strings.HasPrefix(out, "afftrack ") || !strings.Contains(out, " go1.") {
			t.Errorf("%s: %v\n%s", arg, err, out)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"; run afftrack --help`},
		{[]string{"account", "frobnicate"}, `unknown account command "frobnicate"; see afftrack account --help`},
		{[]string{"serve", "--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
	} {
		t.Run(strings.Join(tc.args, " ")+" is a usage error", func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, tc.args...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
				t.Errorf("exit %v, want 2", err)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
			if files, _ := os.ReadDir(dir); len(files) > 0 {
				t.Errorf("created %v", files)
			}
		})
	}
}

func TestAdministrationNamesTheMissingRecord(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "a.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"account", "show", "merchant", "999"}, "afftrack: merchant 999 not found"},
		{[]string{"account", "suspend", "affiliate", "998"}, "afftrack: affiliate 998 not found"},
		{[]string{"key", "create", "merchant", "999"}, "afftrack: merchant 999 not found"},
		{[]string{"key", "list", "affiliate", "7"}, "afftrack: affiliate 7 not found"},
		{[]string{"key", "revoke", "nokey"}, "afftrack: key nokey not found"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := afftrack(t, nil, append(tc.args, "--db", dsn)...)
			if err == nil || strings.TrimSpace(out) != tc.want {
				t.Errorf("got %v:\n%s\nwant %q", err, out, tc.want)
			}
		})
	}
}

func TestServeDerivesThePublicURLFromTheAddress(t *testing.T) {
	s := serve(t, "--demo")
	port := s.base[strings.LastIndexByte(s.base, ':')+1:]
	_, _, body := s.get(t, "/V1/Merchant/Transactions/1?apiKey=demo-merchant-1-key", "Accept", "application/xml")
	if want := `xmlns="http://localhost:` + port + `/V1/Merchant"`; !strings.Contains(body, want) {
		t.Errorf("body lacks %s:\n%s", want, body)
	}
}
