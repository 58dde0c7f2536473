#!/usr/bin/env bash
# Prints every import edge between the top-level modules of src/ and fails (exit 1) when one
# goes up the layer order below, or when modules import each other in a circle (two folders
# importing each other is the shortest one). Run from anywhere: tools/layers.sh
#
# An edge is any `crate::X` path in a module's code: `use crate::x::...`, `use crate::{x, y}`
# groups over several lines, and paths written inline (`crate::x::f()`); in the binary
# (src/main.rs, src/cli/) the library is `corpus::X`. Comments and strings are not code. Test
# code (`#[cfg(test)]` items and the files they bring in) is left out: a metric's tests may
# read real truth files with a reader, a reader's tests may score what they read.
#
# The layers, low to high: a module may import from its own layer or any lower one, never
# from a higher one. `paper` is the paper suite's model (Paper, its references and mentions,
# the Doc <-> Paper linearizer); the readers that fill it are in `formats`.
LAYERS='
error walk progress process cluster llm paths
doc
normalize
paper
metrics
formats
store sample
providers ingest import truth external synth install draft degrade
suites
report
cli
'
set -euo pipefail
cd "$(dirname "$0")/.."

exec perl -e '
use strict;
use warnings;

my @layers = grep { /\S/ } split /\n/, $ARGV[0];
my %layer;
for my $i (0 .. $#layers) {
    $layer{$_} = $i for split " ", $layers[$i];
}

my @files = sort split /\n/, `find src -name "*.rs"`;

sub slurp { local $/; open my $f, "<", $_[0] or die "$_[0]: $!"; my $s = <$f>; close $f; $s }

# Comments, strings and char literals become blanks, so braces and paths in them do not count.
sub code_only {
    my ($s) = @_;
    my $out = "";
    pos($s) = 0;
    while (pos($s) < length $s) {
        if ($s =~ m{\G//[^\n]*}gc) { next }
        elsif ($s =~ m{\G/\*.*?\*/}gcs) { next }
        elsif ($s =~ m{\Gb?r(\#*)".*?"\1}gcs) { $out .= q("") }
        elsif ($s =~ m{\Gb?"(?:[^"\\]|\\.)*"}gcs) { $out .= q("") }
        elsif ($s =~ m{\Gb?\x27(?:[^\x27\\\n]|\\[^\n]{1,10}?)\x27}gc) { $out .= "c" }
        elsif ($s =~ m{\G([A-Za-z_][A-Za-z0-9_]*|.)}gcs) { $out .= $1 }
    }
    return $out;
}

# The end (index past it) of the item starting at $i: its first `;` at depth 0, or its
# balanced `{...}` block.
sub item_end {
    my ($s, $i) = @_;
    my $depth = 0;
    for (my $j = $i; $j < length $s; $j++) {
        my $c = substr($s, $j, 1);
        if ($c eq "(" || $c eq "[") { $depth++ }
        elsif ($c eq ")" || $c eq "]") { $depth-- }
        elsif ($c eq ";" && $depth == 0) { return $j + 1 }
        elsif ($c eq "{" && $depth == 0) {
            my $d = 0;
            for (my $k = $j; $k < length $s; $k++) {
                my $ch = substr($s, $k, 1);
                $d++ if $ch eq "{";
                $d-- if $ch eq "}";
                return $k + 1 if $d == 0;
            }
            return length $s;
        }
    }
    return length $s;
}

my %code;
$code{$_} = code_only(slurp($_)) for @files;

# Files that only tests bring in: `#[cfg(test)] [#[path = "x.rs"]] mod name;`.
my %test_file;
my @test_dirs;
for my $f (@files) {
    my $src = slurp($f);
    (my $dir = $f) =~ s{/[^/]+$}{};
    my $base = $f =~ m{/(mod|lib|main)\.rs$} ? $dir : ($f =~ s{\.rs$}{}r);
    while ($src =~ m{#\[cfg\(test\)\]\s*((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;}g) {
        my ($attrs, $name) = ($1, $2);
        if ($attrs =~ m{#\[path\s*=\s*"([^"]+)"\]}) {
            $test_file{"$dir/$1"} = 1;
        } else {
            $test_file{"$base/$name.rs"} = 1;
            push @test_dirs, "$base/$name/";
        }
    }
}

my %lib_names;    # names lib.rs re-exports: crate::Result is crate::error::Result
if (exists $code{"src/lib.rs"}) {
    while ($code{"src/lib.rs"} =~ m{pub\s+use\s+(\w+)::\{?([^;]*)}g) {
        my $m = $1;
        $lib_names{$_} = $m for $2 =~ /(\w+)/g;
    }
}

my (%edges, @problems);
for my $f (@files) {
    next if $f eq "src/lib.rs" || $test_file{$f} || grep { index($f, $_) == 0 } @test_dirs;
    my ($from) = $f =~ m{^src/([^/.]+)};
    $from = "cli" if $from eq "main";
    my $s = $code{$f};
    while ($s =~ m{#\[cfg\(test\)\]}g) {
        my $start = $-[0];
        my $i = $+[0];
        while (substr($s, $i) =~ m{^\s*#\[[^\]]*\]}) { $i += $+[0] }
        my $end = item_end($s, $i);
        substr($s, $start, $end - $start) = " ";
        pos($s) = $start;
    }
    my $root = $from eq "cli" ? "corpus" : "crate";
    my @to;
    while ($s =~ m{\b$root\s*::\s*(\{|\w+)}g) {
        if ($1 ne "{") { push @to, $1; next }
        my $open = $-[1];
        my $end = item_end($s, $open);
        my $group = substr($s, $open + 1, $end - $open - 2);
        my ($depth, $item) = (0, "");
        for my $c (split //, "$group,") {
            if ($c eq "{") { $depth++ }
            elsif ($c eq "}") { $depth-- }
            if ($c eq "," && $depth == 0) { push @to, $1 if $item =~ /^\s*(\w+)/; $item = "" }
            else { $item .= $c }
        }
    }
    for my $to (@to) {
        next if $to eq "self" || $to eq "super" || $to eq "crate";
        $to = $lib_names{$to} if exists $lib_names{$to};
        next if $to eq $from;
        $edges{$from}{$to}++;
    }
}

for my $m (sort keys %edges) {
    push @problems, "module $m is in no layer" unless exists $layer{$m};
    for my $to (sort keys %{ $edges{$m} }) {
        push @problems, "module $to is in no layer" unless exists $layer{$to};
        my $up = exists $layer{$m} && exists $layer{$to} && $layer{$to} > $layer{$m};
        printf "%-10s -> %-10s %4d%s\n", $m, $to, $edges{$m}{$to}, $up ? "   UPWARD" : "";
        push @problems, "$m imports $to, a higher layer" if $up;
    }
}

# Circles: a depth-first search that reports each back edge once.
my (%state, @stack);
sub visit {
    my ($m) = @_;
    $state{$m} = 1;
    push @stack, $m;
    for my $to (sort keys %{ $edges{$m} || {} }) {
        if (($state{$to} // 0) == 1) {
            my @cycle = @stack;
            shift @cycle while $cycle[0] ne $to;
            push @problems, "circle: " . join(" -> ", @cycle, $to);
        } elsif (!$state{$to}) {
            visit($to);
        }
    }
    pop @stack;
    $state{$m} = 2;
}
visit($_) for grep { !$state{$_} } sort keys %edges;

my %seen;
@problems = grep { !$seen{$_}++ } @problems;
if (@problems) {
    print STDERR "\n";
    print STDERR "layers: $_\n" for @problems;
    exit 1;
}
print "\nlayers: no upward import, no circle (", scalar(@layers), " layers)\n";
' "$LAYERS"
