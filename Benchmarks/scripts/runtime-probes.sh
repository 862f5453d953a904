# Sourced by the scripts that count the Swift runtime's reference counting: makes perf's
# uprobes on the named functions of the toolchain's libswiftCore.so, unless they exist.
#
#     source "$here/runtime-probes.sh"; add_runtime_probes swift_retain swift_release
add_runtime_probes() {
    local runtime function
    runtime=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux/libswiftCore.so
    for function in "$@"; do
        perf probe -l 2>/dev/null | grep -q "libswiftCore:$function " || perf probe -q -x "$runtime" "$function"
    done
}
