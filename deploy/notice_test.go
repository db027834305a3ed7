package deploy

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the Go modules section of NOTICE from the module cache")

// releaseTargets are the platforms scripts/release.sh builds by default.
var releaseTargets = []string{"linux/amd64", "linux/arm64", "darwin/arm64"}

// goModule is a module compiled into the binary of at least one target.
type goModule struct {
	Path, Version, Dir string
	Targets            []string
}

// compiledModules lists the modules the main package's build pulls in, for
// every release target: `go list -deps` names a package's module, so only
// modules with code in the binary are listed (not go.mod's test-only
// requirements). GOPROXY=off: the test reads the module cache, never the
// network (scripts/test-all.sh runs `go mod download` first).
func compiledModules(t *testing.T) []goModule {
	t.Helper()
	byPath := map[string]*goModule{}
	for _, target := range releaseTargets {
		goos, goarch, _ := strings.Cut(target, "/")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOPROXY=off", "GOFLAGS=-mod=readonly")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("go list for %s: %v\n%s(run `go mod download` to fill the module cache)", target, err, stderr.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 || f[0] == "earshot" {
				continue
			}
			m := byPath[f[0]]
			if m == nil {
				m = &goModule{Path: f[0], Version: f[1], Dir: f[2]}
				byPath[f[0]] = m
			}
			if !slices.Contains(m.Targets, target) {
				m.Targets = append(m.Targets, target)
			}
		}
	}
	var mods []goModule
	for _, m := range byPath {
		mods = append(mods, *m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods
}

// licenceFile is one licence file of a module, as read from the cache.
type licenceFile struct {
	Name string
	Text string
	IDs  []string // SPDX identifiers recognised in it
}

var licenceName = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice)([-._].*)?$`)

// moduleLicences reads the licence files at the root of a module
// directory. A *-3RD-PARTY file is the module's own inventory of what it
// bundles: named in NOTICE, not copied into it.
func moduleLicences(t *testing.T, dir string) (files []licenceFile, inventories []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("module directory: %v", err)
	}
	for _, e := range entries {
		if e.IsDir() || !licenceName.MatchString(e.Name()) {
			continue
		}
		if strings.Contains(strings.ToUpper(e.Name()), "3RD-PARTY") {
			inventories = append(inventories, e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n"))
		files = append(files, licenceFile{Name: e.Name(), Text: text, IDs: classifyLicence(text)})
	}
	return files, inventories
}

// classifyLicence names the licences whose wording a text holds. It reads
// the texts' own operative sentences (whitespace-insensitive), so a
// module's licence is what its files say, not what a registry reports.
func classifyLicence(text string) []string {
	flat := strings.Join(strings.Fields(text), " ")
	var ids []string
	add := func(id string) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if strings.Contains(flat, "Apache License") && strings.Contains(flat, "Version 2.0") {
		add("Apache-2.0")
	}
	if strings.Contains(flat, "Permission is hereby granted, free of charge, to any person obtaining a copy") || strings.Contains(flat, "MIT License") {
		add("MIT")
	}
	if regexp.MustCompile(`Permission to use, copy, modify, (and|and/or) distribute this software for any purpose with or without fee is hereby granted`).MatchString(flat) {
		add("ISC")
	}
	if strings.Contains(flat, "Redistribution and use in source and binary forms") {
		if strings.Contains(flat, "endorse or promote products derived from this software") {
			add("BSD-3-Clause")
		} else {
			add("BSD-2-Clause")
		}
	}
	if strings.Contains(flat, "dedicated to the public domain") || strings.Contains(flat, "The author disclaims copyright to this source code") {
		add("public domain")
	}
	sort.Strings(ids)
	return ids
}

// apacheBody finds the Apache License 2.0 terms inside a licence file, so
// NOTICE points at LICENSE for them instead of repeating 200 lines.
var apacheBody = regexp.MustCompile(`(?s)\s*Apache License\s+Version 2\.0, January 2004.*END OF TERMS AND CONDITIONS.*`)

const (
	noticeBegin = "5. Go modules compiled into the binary"
	noticeEnd   = "(end of the Go modules section)"
)

// noticeSection is the Go modules section of NOTICE, generated from the
// modules and the licence files in the module cache.
func noticeSection(t *testing.T) string {
	t.Helper()
	mods := compiledModules(t)
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n", noticeBegin, strings.Repeat("-", len(noticeBegin)))
	b.WriteString(`The binaries of scripts/release.sh (` + strings.Join(releaseTargets, ", ") + `)
are compiled from Earshot's code, the Go standard library and runtime, and
the Go modules below, each under its own licence. This section is
generated from the module cache by
    go test ./deploy -run TestNotice -update
and TestNotice fails when go.mod changes and this section does not.

`)
	type row struct{ name, ids, note string }
	rows := []row{{"Go standard library and runtime", "BSD-3-Clause", ""}}
	stdText, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if ids := classifyLicence(string(stdText)); !slices.Equal(ids, []string{"BSD-3-Clause"}) {
		t.Fatalf("the Go distribution's LICENSE reads as %v", ids)
	}
	// Each distinct text once, with every module it covers.
	type text struct {
		body   string
		owners []string
	}
	var texts []*text
	addText := func(owner, body string) {
		for _, x := range texts {
			if x.body == body {
				x.owners = append(x.owners, owner)
				return
			}
		}
		texts = append(texts, &text{body: body, owners: []string{owner}})
	}
	addText("Go standard library and runtime (LICENSE)", strings.TrimSpace(string(stdText)))
	for _, m := range mods {
		files, inventories := moduleLicences(t, m.Dir)
		var ids []string
		for _, f := range files {
			for _, id := range f.IDs {
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
			body := f.Text
			if loc := apacheBody.FindStringIndex(body); loc != nil {
				body = strings.TrimSpace(body[:loc[0]] + "\n\n[The Apache License, Version 2.0: the text in this repository's LICENSE file.]")
			}
			addText(m.Path+" "+m.Version+" ("+f.Name+")", body)
		}
		if len(ids) == 0 {
			t.Fatalf("%s %s: no licence recognised in its files %v; teach classifyLicence its wording (do not guess)", m.Path, m.Version, files)
		}
		sort.Strings(ids)
		var note []string
		if len(m.Targets) < len(releaseTargets) {
			note = append(note, "only on "+strings.Join(m.Targets, ", "))
		}
		for _, inv := range inventories {
			note = append(note, "what it bundles: "+inv+" in the module")
		}
		rows = append(rows, row{m.Path + " " + m.Version, strings.Join(ids, " AND "), strings.Join(note, "; ")})
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%-66s %s\n", r.name, r.ids)
		if r.note != "" {
			fmt.Fprintf(&b, "    (%s)\n", r.note)
		}
	}
	b.WriteString("\nTheir licence texts, each once, with the modules and files it comes from:\n")
	for _, x := range texts {
		fmt.Fprintf(&b, "\n=== %s\n\n%s\n", strings.Join(x.owners, "\n=== "), x.body)
	}
	fmt.Fprintf(&b, "\n%s\n", noticeEnd)
	return b.String()
}

// Issue 23: NOTICE lists every Go module compiled into a release binary,
// at the version go.mod selects, with the licences its files in the module
// cache state, and carries those texts. A dependency added, removed or
// upgraded without regenerating NOTICE fails here.
func TestNotice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list for every release target")
	}
	want := noticeSection(t)
	b, err := os.ReadFile("NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	notice := string(b)
	start := strings.Index(notice, noticeBegin+"\n")
	end := strings.Index(notice, noticeEnd)
	if *update {
		if start < 0 || end < 0 {
			notice = strings.TrimRight(notice, "\n") + "\n\n\n" + want
		} else {
			notice = notice[:start] + want + notice[end+len(noticeEnd)+1:]
		}
		if err := os.WriteFile("NOTICE", []byte(notice), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if start < 0 || end < 0 {
		t.Fatalf("NOTICE has no %q section: run go test ./deploy -run TestNotice -update", noticeBegin)
	}
	got := notice[start : end+len(noticeEnd)+1]
	if got == want {
		return
	}
	// Name the modules whose line is missing, for a readable failure.
	for _, line := range strings.Split(want, "\n") {
		if line != "" && !strings.Contains(got, line) && !strings.HasPrefix(line, " ") && strings.Contains(line, " v") {
			t.Errorf("NOTICE lacks %q", line)
		}
	}
	t.Errorf("NOTICE's Go modules section is not what go.mod and the module cache give: run go test ./deploy -run TestNotice -update")
}

// The classifier reads wording, not file names: a check that it tells the
// licences in the module cache apart, on excerpts of their texts.
func TestClassifyLicence(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Permission is hereby granted, free of charge, to any person obtaining a copy\nof this software", []string{"MIT"}},
		{"Permission to use, copy, modify, and distribute this software for any\npurpose with or without fee is hereby granted", []string{"ISC"}},
		{"Redistribution and use in source and binary forms ... Neither the name ... may be used to endorse or promote products derived from this software", []string{"BSD-3-Clause"}},
		{"Redistribution and use in source and binary forms, with or without modification", []string{"BSD-2-Clause"}},
		{"                                 Apache License\n                           Version 2.0, January 2004", []string{"Apache-2.0"}},
		{"This project is covered by two different licenses: MIT and Apache.\n#### MIT License ####\nLicensed under the Apache License, Version 2.0", []string{"Apache-2.0", "MIT"}},
		{"All of the code and documentation in SQLite has been dedicated to the public\ndomain by the authors.", []string{"public domain"}},
		{"https://commons.wikimedia.org/wiki/File:Memory_infra_logo.png", nil},
	} {
		if got := classifyLicence(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%.40q: %v, want %v", tc.text, got, tc.want)
		}
	}
}
