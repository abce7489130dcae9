! A Fortran OpenMP program (gfortran -fopenmp): the omp_* routines through
! the bindings gfortran calls (omp_*_ and omp_*_8_, openmp/src/fortran.cpp),
! each checked against OpenMP's expectations, run under weft's runtime and
! under libgomp alike: team queries, ICV setters and getters with default
! and integer(8) arguments, schedules, worksharing loops with reductions,
! simple and nestable locks
! (exclusion, nesting counts, the pointer a nestable lock variable holds),
! places, teams and device queries, an allocator with a trait, the affinity
! format (blank-padded character results), and a detached task fulfilled
! by another task.
module checks
  use iso_c_binding
  implicit none
  integer :: failures = 0, total = 0
  interface
    function dlsym(handle, name) bind(C, name="dlsym")
      import :: c_ptr, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*) :: name
      type(c_ptr) :: dlsym
    end function
  end interface
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    total = total + 1
    if (.not. ok) then
      failures = failures + 1
      print '(2a)', 'FAIL fortran_test: ', what
    end if
  end subroutine

  ! weft's runtime exports its extension omp_get_binding_policy; libgomp does not.
  function runtime_name() result(name)
    character(:), allocatable :: name
    if (c_associated(dlsym(c_null_ptr, 'omp_get_binding_policy'//c_null_char))) then
      name = 'weft'
    else
      name = 'libgomp'
    end if
  end function
end module checks

program fortran_test
  use omp_lib
  use checks
  implicit none
  character(len=32) :: expect
  character(len=40) :: buf
  integer :: n, k, i, count, nplaces, holders, most_holders, total_taken, detached_ran
  integer :: seen(0:2), tested(0:1)
  integer(kind=omp_sched_kind) :: kind
  integer :: chunk
  integer(8) :: chunk8, n8
  integer(omp_lock_kind) :: lock
  integer(omp_nest_lock_kind) :: nest
  integer(omp_allocator_handle_kind) :: allocator, before
  integer(omp_event_handle_kind) :: event
  type(omp_alloctrait) :: traits(1)
  integer, allocatable :: ids(:), nums(:)
  integer(8), allocatable :: ids8(:)
  double precision :: t0, t1, spin

  call get_environment_variable('WEFT_OMP_EXPECT', expect)
  if (len_trim(expect) > 0 .and. trim(expect) /= runtime_name()) then
    print '(4a)', 'FAIL fortran_test: expected to run on ', trim(expect), ', runs on ', runtime_name()
    error stop 2
  end if

  ! A team of 3 and what its members see.
  seen = 0
  !$omp parallel num_threads(3) private(k)
  k = omp_get_thread_num()
  !$omp atomic
  seen(k) = seen(k) + 1
  !$omp single
  call check(omp_get_num_threads() == 3, 'omp_get_num_threads in a team of 3')
  call check(omp_in_parallel(), 'omp_in_parallel inside a region')
  call check(omp_get_level() == 1 .and. omp_get_active_level() == 1, 'omp_get_level, omp_get_active_level')
  call check(omp_get_team_size(1) == 3 .and. omp_get_team_size(0) == 1, 'omp_get_team_size')
  call check(omp_get_team_size(int(1, 8)) == 3, 'omp_get_team_size with an integer(8) level')
  call check(omp_get_ancestor_thread_num(0) == 0, 'omp_get_ancestor_thread_num(0)')
  call check(omp_get_ancestor_thread_num(int(1, 8)) == omp_get_thread_num(), &
             'omp_get_ancestor_thread_num with an integer(8) level')
  !$omp end single
  !$omp end parallel
  call check(all(seen == 1), 'thread numbers 0, 1, 2 once each')
  call check(.not. omp_in_parallel() .and. omp_get_level() == 0, 'outside every region')

  ! ICVs, set and read back.
  call omp_set_num_threads(2)
  call check(omp_get_max_threads() == 2, 'omp_set_num_threads(2), omp_get_max_threads')
  n8 = 3
  call omp_set_num_threads(n8)
  call check(omp_get_max_threads() == 3, 'omp_set_num_threads with an integer(8)')
  call omp_set_schedule(omp_sched_dynamic, 4)
  call omp_get_schedule(kind, chunk)
  call check(kind == omp_sched_dynamic .and. chunk == 4, 'omp_set_schedule, omp_get_schedule')
  chunk8 = 7
  call omp_set_schedule(omp_sched_guided, chunk8)
  call omp_get_schedule(kind, chunk8)
  call check(kind == omp_sched_guided .and. chunk8 == 7, 'omp_get_schedule with an integer(8) chunk')
  call omp_set_dynamic(.true.)
  call check(omp_get_dynamic(), 'omp_set_dynamic(.true.)')
  call omp_set_dynamic(.false.)
  call check(.not. omp_get_dynamic(), 'omp_set_dynamic(.false.)')
  call omp_set_max_active_levels(2)
  call check(omp_get_max_active_levels() == 2, 'omp_set_max_active_levels')
  call check(omp_get_supported_active_levels() >= 2, 'omp_get_supported_active_levels')
  call check(omp_get_num_procs() >= 1 .and. omp_get_thread_limit() >= 1, 'omp_get_num_procs, omp_get_thread_limit')
  call check(.not. omp_get_cancellation() .and. .not. omp_in_final(), 'no cancellation, not in a final task')
  call check(omp_get_max_task_priority() == 0, 'omp_get_max_task_priority')

  ! A nested region (max-active-levels is 2 now).
  n = 0
  !$omp parallel num_threads(2)
  !$omp parallel num_threads(2)
  !$omp single
  if (omp_get_level() == 2 .and. omp_get_active_level() == 2 .and. omp_get_team_size(2) == 2) then
    !$omp atomic
    n = n + 1
  end if
  !$omp end single
  !$omp end parallel
  !$omp end parallel
  call check(n == 2, 'two nested teams of 2 at level 2')

  ! Worksharing loops and a reduction, as gfortran emits them.
  n8 = 0
  !$omp parallel do schedule(dynamic, 7) reduction(+:n8)
  do i = 1, 1000
    n8 = n8 + i
  end do
  !$omp end parallel do
  call check(n8 == 500500, 'parallel do schedule(dynamic, 7) reduction(+)')
  n8 = 0
  !$omp parallel num_threads(3) reduction(+:n8)
  !$omp do schedule(static)
  do i = 1, 999
    n8 = n8 + i
  end do
  !$omp end do
  !$omp end parallel
  call check(n8 == 499500, 'do schedule(static) in a team of 3, reduction(+)')

  ! Time.
  t0 = omp_get_wtime()
  spin = 0
  do i = 1, 100000
    spin = spin + sqrt(dble(i))
  end do
  t1 = omp_get_wtime()
  call check(t1 > t0 .and. spin > 0, 'omp_get_wtime advances')
  call check(omp_get_wtick() > 0d0 .and. omp_get_wtick() < 1d-3, 'omp_get_wtick')

  ! A simple lock: exclusion, and omp_test_lock from another thread.
  call omp_init_lock(lock)
  holders = 0
  most_holders = 0
  total_taken = 0
  !$omp parallel num_threads(3) private(i)
  do i = 1, 2000
    call omp_set_lock(lock)
    holders = holders + 1
    most_holders = max(most_holders, holders)
    total_taken = total_taken + 1
    holders = holders - 1
    call omp_unset_lock(lock)
  end do
  !$omp end parallel
  call check(total_taken == 6000 .and. most_holders == 1, 'omp_set_lock excludes')
  tested = -1
  !$omp parallel num_threads(2)
  if (omp_get_thread_num() == 0) call omp_set_lock(lock)
  !$omp barrier
  if (omp_get_thread_num() == 1) then
    tested(1) = merge(1, 0, omp_test_lock(lock))
  end if
  !$omp barrier
  if (omp_get_thread_num() == 0) then
    call omp_unset_lock(lock)
    tested(0) = merge(1, 0, omp_test_lock(lock))
    call omp_unset_lock(lock)
  end if
  !$omp end parallel
  call check(tested(1) == 0, 'omp_test_lock fails on a lock another thread holds')
  call check(tested(0) == 1, 'omp_test_lock takes a free lock')
  call omp_destroy_lock(lock)

  ! A nestable lock: the variable holds the lock's address; nesting counts.
  call omp_init_nest_lock(nest)
  call check(nest /= 0, 'omp_init_nest_lock stores the lock in the variable')
  call omp_set_nest_lock(nest)
  call omp_set_nest_lock(nest)
  count = omp_test_nest_lock(nest)
  call check(count == 3, 'omp_test_nest_lock returns the nesting count')
  tested = -1
  !$omp parallel num_threads(2)
  if (omp_get_thread_num() == 1) tested(1) = omp_test_nest_lock(nest)
  !$omp end parallel
  call check(tested(1) == 0, 'omp_test_nest_lock fails on a lock another thread holds')
  do i = 1, 3
    call omp_unset_nest_lock(nest)
  end do
  !$omp parallel num_threads(2)
  if (omp_get_thread_num() == 1) then
    tested(1) = omp_test_nest_lock(nest)
    call omp_unset_nest_lock(nest)
  end if
  !$omp end parallel
  call check(tested(1) == 1, 'omp_test_nest_lock takes the lock once it is free')
  call omp_destroy_nest_lock(nest)
  call check(nest == 0, 'omp_destroy_nest_lock clears the variable')

  ! Places (how many depends on OMP_PLACES): both kinds of the id queries agree.
  nplaces = omp_get_num_places()
  call check(nplaces >= 0, 'omp_get_num_places')
  if (nplaces > 0) then
    n = omp_get_place_num_procs(0)
    call check(n >= 1 .and. omp_get_place_num_procs(int(0, 8)) == n, 'omp_get_place_num_procs, both kinds')
    allocate(ids(n), ids8(n))
    call omp_get_place_proc_ids(0, ids)
    call omp_get_place_proc_ids(int(0, 8), ids8)
    call check(all(ids >= 0) .and. all(ids == ids8), 'omp_get_place_proc_ids, both kinds')
    n = omp_get_partition_num_places()
    call check(n >= 1 .and. n <= nplaces, 'omp_get_partition_num_places')
    allocate(nums(n))
    call omp_get_partition_place_nums(nums)
    call check(all(nums >= 0 .and. nums < nplaces), 'omp_get_partition_place_nums')
    deallocate(ids, ids8, nums)
  end if

  ! Teams and devices.
  call omp_set_num_teams(3)
  call check(omp_get_max_teams() == 3, 'omp_set_num_teams, omp_get_max_teams')
  call omp_set_teams_thread_limit(int(2, 8))
  call check(omp_get_teams_thread_limit() == 2, 'omp_set_teams_thread_limit with an integer(8)')
  call check(omp_get_num_teams() == 1 .and. omp_get_team_num() == 0, 'outside teams: one team, number 0')
  call check(omp_is_initial_device(), 'omp_is_initial_device on the host')
  call check(omp_get_device_num() == omp_get_initial_device(), 'the host is the initial device')
  call omp_set_default_device(0)
  call check(omp_get_default_device() == 0, 'omp_set_default_device, omp_get_default_device')

  ! An allocator with a trait, as the default allocator for a while.
  traits(1)%key = omp_atk_alignment
  traits(1)%value = 64
  allocator = omp_init_allocator(omp_default_mem_space, 1, traits)
  call check(allocator /= omp_null_allocator, 'omp_init_allocator with an alignment trait')
  before = omp_get_default_allocator()
  call omp_set_default_allocator(allocator)
  call check(omp_get_default_allocator() == allocator, 'omp_set_default_allocator, omp_get_default_allocator')
  call omp_set_default_allocator(before)
  call omp_destroy_allocator(allocator)

  ! The affinity format: character arguments and blank-padded results.
  call omp_set_affinity_format('T%n')
  buf = 'garbage'
  n = omp_get_affinity_format(buf)
  call check(n == 3 .and. buf == 'T%n', 'omp_set_affinity_format, omp_get_affinity_format')
  seen = 0
  !$omp parallel num_threads(2) private(buf, n, k)
  k = omp_get_thread_num()
  n = omp_capture_affinity(buf, 'x%n')
  if (n == 2 .and. buf == 'x'//achar(48 + k)) then
    !$omp atomic
    seen(k) = seen(k) + 1
  end if
  !$omp end parallel
  call check(seen(0) == 1 .and. seen(1) == 1, 'omp_capture_affinity with a format, in a team of 2')

  ! A detached task completes only once another task fulfils its event.
  detached_ran = 0
  !$omp parallel num_threads(2)
  !$omp single
  !$omp task detach(event) shared(detached_ran)
  detached_ran = 1
  !$omp end task
  !$omp task
  call omp_fulfill_event(event)
  !$omp end task
  !$omp end single
  !$omp end parallel
  call check(detached_ran == 1, 'a detached task, fulfilled by another task')

  if (failures == 0) then
    print '(a,i0,a)', 'fortran_test: all ', total, ' checks passed'
  else
    print '(a,i0,a,i0,a)', 'fortran_test: ', failures, ' of ', total, ' checks FAILED'
    error stop 1
  end if
end program fortran_test
