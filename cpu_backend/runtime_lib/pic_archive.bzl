"""pic_archive: one static archive of the position-independent objects of
some cc_library targets and everything they depend on.

hlo-compile links it into the shared libraries and objects it writes
(cpu_backend/aot/), so that they hold the runtime library their code calls
and depend on nothing of xlite at run time. System libraries the deps name
with -l (pthread, m) are left to the link line that uses the archive.
"""

def _objects_of(library):
    # PIC objects where the library has them (a shared library needs them);
    # a library whose objects are PIC already (precompiled .o srcs built
    # with -fPIC) lists them as its plain objects.
    if library.pic_objects:
        return library.pic_objects
    if library.objects:
        return library.objects
    if library.pic_static_library:
        return [library.pic_static_library]
    if library.static_library:
        return [library.static_library]
    return []

def _pic_archive_impl(ctx):
    objects = []
    seen = {}
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for library in linker_input.libraries:
                for f in _objects_of(library):
                    if f.path not in seen:
                        seen[f.path] = True
                        objects.append(f)
    out = ctx.outputs.out
    args = ctx.actions.args()
    args.add(out)
    args.add_all(objects)

    # `ar q` appends every member, even two with one base name (`ar r`
    # would keep only the last); `s` writes the symbol index the linker
    # pulls members by. An archive member that is itself an archive is
    # expanded first.
    ctx.actions.run_shell(
        inputs = objects,
        outputs = [out],
        arguments = [args],
        command = """set -e
out=$1; shift
rm -f "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for f in "$@"; do
  case "$f" in
    *.a)
      n=$((n + 1)); mkdir "$tmp/$n"
      (cd "$tmp/$n" && ar x "$OLDPWD/$f")
      for m in "$tmp/$n"/*; do ar qc "$out" "$m"; done ;;
    *) ar qc "$out" "$f" ;;
  esac
done
ar s "$out"
""",
        mnemonic = "PicArchive",
        progress_message = "Archiving the PIC objects of %s" % ctx.label,
    )
    return [DefaultInfo(
        files = depset([out]),
        runfiles = ctx.runfiles(files = [out]),
    )]

pic_archive = rule(
    implementation = _pic_archive_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "out": attr.output(mandatory = True),
    },
    doc = "A static archive of the PIC objects of `deps`, transitively.",
)
