#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# dh $@ --with dlnote: run dh_dlnote where the files are final but not yet rewritten by the
# debug pipeline: after dh_install (and everything that installs), before dh_dwz (compat 12 and
# later) or dh_strip (before compat 12, where dh_dwz is not in the sequence).  It injects each
# package's manifest and lints the result (dh_dlnote(1)).  Then dh_dlnotedeps writes the
# dependencies of the notes, before dh_gencontrol: after dh_makeshlibs, which describes the
# libraries the source builds, as dh_shlibdeps runs after it (dh_dlnotedeps(1)).
use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_before('dh_dwz', 'dh_dlnote') or insert_before('dh_strip', 'dh_dlnote');
insert_before('dh_gencontrol', 'dh_dlnotedeps');

1;
