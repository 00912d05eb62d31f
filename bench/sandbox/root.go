package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// mountPlan is what the helper mounts before it runs the command.
type mountPlan struct {
	Binds []Bind
	// Root, when set, is where the run's own root is built; Dir is the
	// working directory inside it.
	Root, Dir string
}

// ownRoot builds the run's root file system in plan.Root and enters it: a
// tmpfs on which every top-level folder of the machine is bound (symbolic
// links copied as links), then the plan's binds, their targets made as
// needed; the helper then chroots there and enters plan.Dir.
func ownRoot(plan mountPlan) error {
	root := plan.Root
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %v", err)
	}
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=755"); err != nil {
		return fmt.Errorf("mount a tmpfs on %s: %v", root, err)
	}
	ents, err := os.ReadDir("/")
	if err != nil {
		return err
	}
	for _, e := range ents {
		src, dst := "/"+e.Name(), filepath.Join(root, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			link, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, dst); err != nil {
				return err
			}
		case e.IsDir():
			if err := os.Mkdir(dst, 0o755); err != nil {
				return err
			}
			if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return fmt.Errorf("bind %s: %v", src, err)
			}
		}
	}
	for _, b := range plan.Binds {
		dst := filepath.Join(root, b.Target)
		if err := bindTarget(b, dst); err != nil {
			return err
		}
		if err := unix.Mount(b.Source, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s over %s: %v", b.Source, b.Target, err)
		}
	}
	if err := unix.Chroot(root); err != nil {
		return fmt.Errorf("chroot %s: %v", root, err)
	}
	dir := plan.Dir
	if dir == "" {
		dir = "/"
	}
	return unix.Chdir(dir)
}

// bindTarget makes the mount point of b at dst: a folder's target is made
// as needed; a file's target must be a file already there (a file made in
// a folder bound from the machine would be made on the machine).
func bindTarget(b Bind, dst string) error {
	src, err := os.Stat(b.Source)
	if err != nil {
		return fmt.Errorf("bind %s: %v", b.Source, err)
	}
	if src.IsDir() {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return fmt.Errorf("make %s: %v", b.Target, err)
		}
		return nil
	}
	if st, err := os.Stat(dst); err != nil || st.IsDir() {
		return fmt.Errorf("bind %s over %s: the run's root has no file there", b.Source, b.Target)
	}
	return nil
}
