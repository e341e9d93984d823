package main_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// flagsOf returns the flags a command's --help lists.
func flagsOf(t *testing.T, command ...string) []string {
	t.Helper()
	out, err := afftrack(t, nil, append(command, "--help")...)
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", strings.Join(command, " "), err, out)
	}
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(out, -1) {
		flags = append(flags, m[1])
	}
	return flags
}

// TestDeployConfigurationReferenceMatchesTheFlags reads the configuration
// reference of docs/deploy.md: every flag of serve has a row with its
// variable, and a row's Commands column names every command that has the
// flag, so the reference cannot fall behind the code unseen.
func TestDeployConfigurationReferenceMatchesTheFlags(t *testing.T) {
	page, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // flag: the row's cells
	for _, line := range strings.Split(string(page), "\n") {
		cells := strings.Split(line, " | ")
		if m := regexp.MustCompile("^\\| `--([a-z-]+)`$").FindStringSubmatch(cells[0]); m != nil && len(cells) == 5 {
			rows[m[1]] = cells
		}
	}
	commands := map[string]string{ // a command's name in the Commands column: how to call it
		"serve": "serve", "import": "import", "validate": "validate", "transactions": "transactions release",
		"lifecycle": "lifecycle run", "payouts": "payouts run",
	}
	for _, name := range []string{"serve", "import", "validate", "transactions", "lifecycle", "payouts"} {
		for _, flag := range flagsOf(t, strings.Fields(commands[name])...) {
			t.Run(commands[name]+"'s --"+flag+" is in the reference", func(t *testing.T) {
				row, ok := rows[flag]
				if !ok {
					if name == "serve" {
						t.Errorf("no row for --%s", flag)
					}
					return // another command's own flag: cli.md's
				}
				variable := "`AFFTRACK_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_")) + "`"
				if row[1] != variable {
					t.Errorf("--%s's variable is %s, want %s", flag, row[1], variable)
				}
				if row[3] != "all but `version`" && !strings.Contains(row[3], name) {
					t.Errorf("--%s's commands are %q, without %s", flag, row[3], name)
				}
			})
		}
	}
	t.Run("--demo's row says that --db is where the demo goes", func(t *testing.T) {
		if row := rows["demo"]; len(row) < 5 || strings.Contains(row[4], "ignores") || !strings.Contains(row[4], "`--db`") {
			t.Errorf("--demo's row: %q", row)
		}
	})
	t.Run("--public-url's default is derived from --addr", func(t *testing.T) {
		if row := rows["public-url"]; len(row) < 5 || !strings.Contains(row[2], "--addr") {
			t.Errorf("--public-url's row: %q", row)
		}
	})
}
