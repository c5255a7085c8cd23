/* identity.h — who is asking, as every room sees it: a user name and the admin flag.
 * auth/ fills it from a bearer token; the stores record its user as an owner; the owner
 * rule (a thing is its owner's and the admins') is identity_may_read. */
#ifndef FDWD_IDENTITY_H
#define FDWD_IDENTITY_H


typedef struct identity {
    char user[128];
    int admin;
} identity;

/* May who read what owner owns? (Its owner, or an admin.) */
int identity_may_read(const identity *who, const char *owner);

/* True when name may own things: [A-Za-z0-9._@-]{1,64}. */
int identity_valid_name(const char *name);

#endif
