// SPDX-License-Identifier: GPL-2.0
/*
 * stackid: system-wide sampling of user stacks as build-id + file offset.
 *
 * This file holds module init/exit and the module parameters. The misc
 * device /dev/stackid (root only, mode 0600) is the whole user interface;
 * include/stackid.h defines it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>

#include <stackid.h>

static const struct file_operations stackid_fops = {
	.owner = THIS_MODULE,
};

static struct miscdevice stackid_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "stackid",
	.fops = &stackid_fops,
	.mode = 0600,
};

static int __init stackid_init(void)
{
	int err;

	err = misc_register(&stackid_misc);
	if (err) {
		pr_err("cannot register /dev/stackid: %d\n", err);
		return err;
	}
	pr_info("version %s loaded (ABI %u.%u)\n", STACKID_VERSION,
		STACKID_ABI_MAJOR, STACKID_ABI_MINOR);
	return 0;
}

static void __exit stackid_exit(void)
{
	misc_deregister(&stackid_misc);
	pr_info("unloaded\n");
}

module_init(stackid_init);
module_exit(stackid_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("stackid developers");
MODULE_DESCRIPTION("System-wide user stack sampling as ELF build-id + file offset");
MODULE_VERSION(STACKID_VERSION);
MODULE_INFO(stackid_abi, __stringify(STACKID_ABI_MAJOR) "." __stringify(STACKID_ABI_MINOR));
