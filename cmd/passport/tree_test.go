package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestCommandTree pins that each command's name selects a tree of that
// command alone, and that anything else gets the whole tree.
func TestCommandTree(t *testing.T) {
	full := reflect.TypeFor[commands]()
	for i := range full.NumField() {
		f := full.Field(i)
		name := strings.ToLower(f.Name)
		if strings.Contains(f.Tag.Get("name"), "-") || name != strings.ReplaceAll(name, "-", "") {
			t.Errorf("command %s: commandTree matches lower-cased field names only", f.Name)
		}
		got := reflect.TypeOf(commandTree([]string{name, "--help"})).Elem()
		if got.NumField() != 1 || got.Field(0).Name != f.Name || got.Field(0).Tag != f.Tag {
			t.Errorf("commandTree(%s) = %v", name, got)
		}
	}
	for _, args := range [][]string{nil, {"--help"}, {"nosuch"}, {"Verify"}} {
		if _, ok := commandTree(args).(*commands); !ok {
			t.Errorf("commandTree(%q) is not the whole tree", args)
		}
	}
}
