# SPDX-License-Identifier: MIT
# bash completion for dlnote-inject(1).  Installed by `make install` as
# $(DATADIR)/bash-completion/completions/dlnote-inject; needs nothing from bash-completion.

_dlnote_inject()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	local opts="--manifest --feature --soname --description --priority --merge --remove --list
		--json --check --discover --header --closure --root --min-priority --policy --record --recorded --format --only-feature --only-priority --rpm-requires
		--rpm-recommends --rpm-suggests --deb-map --build-root --rpm-generate --rpm-package --rpm-features
		--rpm-protocol --expect --skip-non-elf --files-from --null --member
		--output --fsync --verbose --quiet --version --help"

	# readline splits "--format=rpm" at '=': complete the value of the option before it.
	local eq=
	if [[ $cur == = ]]; then
		cur= eq=1
	elif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
		prev=${COMP_WORDS[COMP_CWORD-2]} eq=1
	fi

	case $prev in
	--policy | -m | --manifest | --expect | --deb-map | --files-from | -o | --output | --record | --recorded)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--root | --build-root)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	--priority | --min-priority)
		COMPREPLY=($(compgen -W "required recommended suggested" -- "$cur"))
		return
		;;
	--only-priority)
		# A comma-separated list: complete its last element.
		local head=
		[[ $cur == *,* ]] && head=${cur%,*},
		COMPREPLY=($(compgen -P "$head" -W "required recommended suggested" -- "${cur##*,}"))
		return
		;;
	--format)
		COMPREPLY=($(compgen -W "table json jsonl sonames features rpm deb cyclonedx symbols" -- "$cur"))
		return
		;;
	--rpm-generate)
		COMPREPLY=($(compgen -W "requires recommends suggests" -- "$cur"))
		return
		;;
	--rpm-protocol)
		COMPREPLY=($(compgen -W "singlefile multifile" -- "$cur"))
		return
		;;
	--feature | --soname | --description | --only-feature | --rpm-package | --rpm-features)
		return # free text
		;;
	--rpm-requires | --rpm-recommends | --rpm-suggests)
		[[ $eq ]] && return # feature names; without '=' the next word is a FILE
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -o bashdefault -F _dlnote_inject dlnote-inject
