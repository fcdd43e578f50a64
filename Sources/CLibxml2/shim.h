// Umbrella header for libxml2's tree, parser and XPath APIs, plus inline helpers for what Swift
// cannot reach directly (xmlFree is a global function pointer; error callbacks are variadic).
#ifndef UNDERSTUDY_CLIBXML2_SHIM_H
#define UNDERSTUDY_CLIBXML2_SHIM_H

// Debian's libxml2 is built with ICU, and its encoding.h then includes the system's ICU headers,
// whose types clash with the copy Foundation carries (_FoundationICU) in any module that imports
// both. Understudy never touches the ICU converter fields that option adds to
// xmlCharEncodingHandler (it never reads or allocates one), so the headers are read without it.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/parserInternals.h>

static inline void understudy_xml_free(void *pointer) { xmlFree(pointer); }

static void understudy_xml_ignore_generic(void *context, const char *message, ...) {
    (void)context; (void)message;
}
static void understudy_xml_ignore_structured(void *context, xmlErrorPtr error) {
    (void)context; (void)error;
}

/// libxml2 keeps error handlers per thread: silence both on the calling thread (errors are read
/// from the parser context and reported by the caller instead of printed to standard error).
static inline void understudy_xml_silence_errors(void) {
    xmlSetGenericErrorFunc(NULL, understudy_xml_ignore_generic);
    xmlSetStructuredErrorFunc(NULL, understudy_xml_ignore_structured);
}

/// Refuses every external resource (DTDs, entities, XIncludes): no file is read and no URL fetched.
static xmlParserInputPtr understudy_xml_no_external(const char *url, const char *id, xmlParserCtxtPtr context) {
    (void)url; (void)id; (void)context;
    return NULL;
}
static inline void understudy_xml_refuse_external_resources(void) {
    xmlSetExternalEntityLoader(understudy_xml_no_external);
}

#endif
