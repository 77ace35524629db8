#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# dh $@ --with dlnote: run dh_dlnote (dependencies from the dlopen notes) after dh_shlibdeps.
use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_after('dh_shlibdeps', 'dh_dlnote');

1;
