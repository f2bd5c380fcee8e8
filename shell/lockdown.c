/*
 * lockdown.c: privilege drop.  (Stub: fails closed until implemented.)
 */
#include <errno.h>

#include "lockdown.h"
#include "log.h"

int
lockdown_limit_userns(void)
{
	return log_errno(-ENOSYS, "lockdown not implemented");
}

int
lockdown_inner(void)
{
	return log_errno(-ENOSYS, "lockdown not implemented");
}

int
lockdown_init(void)
{
	return log_errno(-ENOSYS, "lockdown not implemented");
}
