/* identity.c — the owner rule and the rule for user names (see identity.h). */
#include "core/identity.h"

#include <ctype.h>
#include <string.h>

int identity_may_read(const identity *who, const char *owner)
{
    return owner && (who->admin || strcmp(owner, who->user) == 0);
}

int identity_valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n < 1 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("._@-", name[i]))
            return 0;
    return 1;
}
