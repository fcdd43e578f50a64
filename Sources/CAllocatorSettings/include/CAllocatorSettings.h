// The settings jemalloc reads when it starts, in a release build on Linux that links it
// (tools/release-flags.sh); anywhere else nothing reads them.
#ifndef UNDERSTUDY_CALLOCATORSETTINGS_H
#define UNDERSTUDY_CALLOCATORSETTINGS_H

extern const char *malloc_conf;

#endif
